import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { json, renderApp, stubFetch, stubLocation } from '../../test/harness';

const EXCHANGE = 'POST /api/account/exchangeSSOTransferToken';
const DEVICE = 'Dev1ce-Id_42';
const TOKEN = 'T'.repeat(43);

describe('the device hand-off screen (decision 0021)', () => {
  it('wipes the token from the address, keeps the device id, exchanges the token once and goes home', async () => {
    const calls = stubFetch({ [EXCHANGE]: () => json(200, { otter: 'session' }) });
    const { replace } = stubLocation();
    renderApp(`/device-hand-off?deviceId=${DEVICE}&otter=${TOKEN}`);
    expect(await screen.findByRole('heading', { level: 1, name: 'Opening Foyer' })).toBeInTheDocument();
    expect(window.location.search).toBe('');
    await waitFor(() => expect(replace).toHaveBeenCalledWith('/home'));
    const sent = calls.filter((call) => call.method === 'POST');
    expect(sent).toHaveLength(1);
    expect(sent[0]?.body).toEqual({ token: TOKEN, deviceId: DEVICE });
    expect(sent[0]?.headers.get('X-DeviceId')).toBe(DEVICE);
    expect(localStorage.getItem('deviceId')).toBe(DEVICE);
    // Spec §3: `_{env}` outside production; the session itself is the service's HttpOnly cookie.
    expect(document.cookie).toContain(`deviceId_test=${DEVICE}`);
    expect(document.cookie).not.toContain(TOKEN);
  });

  it.each([
    ['a spent or expired token', `deviceId=${DEVICE}&otter=${TOKEN}`],
    ['no token', `deviceId=${DEVICE}`],
    ['a malformed device id', `deviceId=short&otter=${TOKEN}`],
  ])('explains %s, with a way to sign in', async (_name, query) => {
    stubFetch({ [EXCHANGE]: () => json(400, { errorMessage: 'ssoTransferFailed' }) });
    const { replace } = stubLocation();
    renderApp(`/device-hand-off?${query}`);
    expect(await screen.findByRole('alert')).toHaveTextContent('This sign-in link is invalid or has expired. Please sign in again from the app.');
    expect(screen.getByRole('link', { name: 'Back to Sign In' })).toHaveAttribute('href', '/sign-in');
    expect(replace).not.toHaveBeenCalled();
    expect(window.location.search).toBe('');
  });
});
