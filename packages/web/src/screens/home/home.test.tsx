import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { json, renderApp, stubFetch, stubLocation } from '../../test/harness';

const SESSION = 'GET /api/account/session';
const SIGN_OUT = 'POST /api/account/signout';

const ann = { id: 'u1', email: 'ann@example.com', firstName: 'Ann', lastName: 'Lee', emailVerified: true };

describe('home page (decision 0005)', () => {
  it('shows a spinner, then who is signed in', async () => {
    stubFetch({ [SESSION]: () => json(200, { user: ann, expiresAt: '2030-01-01T00:00:00.000Z' }) });
    renderApp('/home');
    expect(screen.getByRole('status')).toHaveTextContent('Loading…');
    expect(await screen.findByRole('heading', { level: 1, name: "You're signed in" })).toBeInTheDocument();
    expect(screen.getByText('Signed in as Ann Lee')).toBeInTheDocument();
    expect(screen.getByText(/^Email:/)).toHaveTextContent('Email: ann@example.com');
  });

  it('names the person by email when the account has no name', async () => {
    stubFetch({ [SESSION]: () => json(200, { user: { ...ann, firstName: null, lastName: ' ' }, expiresAt: '2030-01-01T00:00:00.000Z' }) });
    renderApp('/home');
    expect(await screen.findByText('Signed in as ann@example.com')).toBeInTheDocument();
  });

  it('signs out and goes to sign-in', async () => {
    const calls = stubFetch({
      [SESSION]: () => json(200, { user: ann, expiresAt: '2030-01-01T00:00:00.000Z' }),
      [SIGN_OUT]: () => json(200, {}),
    });
    const { assign } = stubLocation();
    renderApp('/home');
    await userEvent.setup().click(await screen.findByRole('button', { name: 'Sign Out' }));
    await waitFor(() => expect(assign).toHaveBeenCalledWith('/sign-in'));
    const signOut = calls.find((call) => call.url === '/api/account/signout');
    expect(signOut?.method).toBe('POST');
    expect(signOut?.body).toEqual({});
  });

  it('says so when signing out fails', async () => {
    stubFetch({
      [SESSION]: () => json(200, { user: ann, expiresAt: '2030-01-01T00:00:00.000Z' }),
      [SIGN_OUT]: () => Promise.reject(new TypeError('Failed to fetch')),
    });
    const { assign } = stubLocation();
    renderApp('/home');
    await userEvent.setup().click(await screen.findByRole('button', { name: 'Sign Out' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Network Error');
    expect(screen.getByRole('button', { name: 'Sign Out' })).toBeEnabled();
    expect(assign).not.toHaveBeenCalled();
  });

  it('sends a visitor without a session to sign-in, coming back here', async () => {
    stubFetch({ [SESSION]: () => json(401, { errorMessage: 'notSignedIn' }) });
    const { replace } = stubLocation();
    renderApp('/home');
    await waitFor(() => expect(replace).toHaveBeenCalledWith('/sign-in?from=%2Fhome'));
  });

  it('offers a retry when the session cannot be read', async () => {
    const answers = [json(503, { errorMessage: 'unavailable' }), json(200, { user: ann, expiresAt: '2030-01-01T00:00:00.000Z' })];
    stubFetch({ [SESSION]: () => answers.shift() ?? json(500, {}) });
    renderApp('/home');
    expect(await screen.findByRole('alert')).toHaveTextContent('There was an unexpected error.');
    await userEvent.setup().click(screen.getByRole('button', { name: 'Try Again' }));
    expect(await screen.findByText('Signed in as Ann Lee')).toBeInTheDocument();
  });
});
