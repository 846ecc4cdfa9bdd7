import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { json, renderApp, stubFetch, stubLocation } from '../../test/harness';

const EXCHANGE = 'POST /api/account/exchangeSSOTransferToken';
const CHECK = 'POST /api/account/exchangeSSOTransferToken/check';
const DEVICE = 'Dev1ce-Id_42';
const TOKEN = 'T'.repeat(43);
const ACCOUNT = { [CHECK]: () => json(200, { email: 'ann@example.com', boundToThisBrowser: false }) };

describe('the device hand-off screen (decision 0021)', () => {
  it('wipes the token from the address, names the account, and signs in only when the person continues', async () => {
    const calls = stubFetch({ ...ACCOUNT, [EXCHANGE]: () => json(200, { otter: 'session' }) });
    const { replace } = stubLocation();
    renderApp(`/device-hand-off?deviceId=${DEVICE}&otter=${TOKEN}`);
    expect(await screen.findByRole('heading', { level: 1, name: 'Opening Foyer' })).toBeInTheDocument();
    expect(window.location.search).toBe('');
    expect(await screen.findByText(/Sign in to this browser as/)).toHaveTextContent('Sign in to this browser as ann@example.com?');
    expect(screen.getByText('Continue only if you started this sign-in yourself.')).toBeInTheDocument();
    // Nothing is exchanged, and nothing of the device kept, before the person says so.
    expect(calls.map((call) => call.url)).toEqual(['/api/account/exchangeSSOTransferToken/check']);
    expect(calls[0]?.body).toEqual({ token: TOKEN });
    expect(localStorage.getItem('deviceId')).not.toBe(DEVICE);

    await userEvent.setup().click(screen.getByRole('button', { name: 'Continue' }));
    await waitFor(() => expect(replace).toHaveBeenCalledWith('/home'));
    const exchanges = calls.filter((call) => call.url === '/api/account/exchangeSSOTransferToken');
    expect(exchanges).toHaveLength(1);
    expect(exchanges[0]?.body).toEqual({ token: TOKEN, deviceId: DEVICE });
    expect(localStorage.getItem('deviceId')).toBe(DEVICE);
    // Spec §3: `_{env}` outside production; the session itself is the service's HttpOnly cookie.
    expect(document.cookie).toContain(`deviceId_test=${DEVICE}`);
    expect(document.cookie).not.toContain(TOKEN);
  });

  it('leaves the token unspent when the person cancels: Cancel goes to sign-in', async () => {
    const calls = stubFetch({ ...ACCOUNT, [EXCHANGE]: () => json(200, { otter: 'session' }) });
    stubLocation();
    renderApp(`/device-hand-off?deviceId=${DEVICE}&otter=${TOKEN}`);
    expect(await screen.findByRole('link', { name: 'Cancel' })).toHaveAttribute('href', '/sign-in');
    expect(calls.filter((call) => call.url === '/api/account/exchangeSSOTransferToken')).toHaveLength(0);
  });

  it.each([
    ['a spent or expired token', `deviceId=${DEVICE}&otter=${TOKEN}`],
    ['no token', `deviceId=${DEVICE}`],
    ['a malformed device id', `deviceId=short&otter=${TOKEN}`],
  ])('explains %s, with a way to sign in', async (_name, query) => {
    stubFetch({ [CHECK]: () => json(400, { errorMessage: 'ssoTransferFailed' }), [EXCHANGE]: () => json(400, { errorMessage: 'ssoTransferFailed' }) });
    const { replace } = stubLocation();
    renderApp(`/device-hand-off?${query}`);
    expect(await screen.findByRole('alert')).toHaveTextContent('This sign-in link is invalid or has expired. Please sign in again from the app.');
    expect(screen.getByRole('link', { name: 'Back to Sign In' })).toHaveAttribute('href', '/sign-in');
    expect(replace).not.toHaveBeenCalled();
    expect(window.location.search).toBe('');
    // A link that signs nobody in changes nothing this browser keeps: not its device id either.
    expect(localStorage.getItem('deviceId')).not.toBe(DEVICE);
    expect(document.cookie).not.toContain(DEVICE);
  });

  it('explains a token spent between the check and the exchange, leaving the browser on its own device id', async () => {
    stubFetch({ ...ACCOUNT, [EXCHANGE]: () => json(400, { errorMessage: 'ssoTransferFailed' }) });
    const { replace } = stubLocation();
    localStorage.setItem('deviceId', 'Browser-Own1');
    renderApp(`/device-hand-off?deviceId=${DEVICE}&otter=${TOKEN}`);
    await userEvent.setup().click(await screen.findByRole('button', { name: 'Continue' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('This sign-in link is invalid or has expired. Please sign in again from the app.');
    expect(replace).not.toHaveBeenCalled();
    // Whoever is signed in to this browser stays signed in: its device id is not the app's.
    expect(localStorage.getItem('deviceId')).toBe('Browser-Own1');
    expect(document.cookie).not.toContain(DEVICE);
  });
});
