import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { deferred, json, renderApp, stubFetch, stubLocation } from '../../test/harness';

const VERIFY = 'POST /api/account/verifyNewEmail';
const CHECK = 'POST /api/account/verifyNewEmail/check';
const FREE = { [CHECK]: () => json(200, { email: 'ann@new.example', signedInElsewhere: false }) };
const TOKEN = 'N3wEmailTokenABCDEFGHIJKLMNOP_-';

describe('/verify-new-email/:token (spec §2, §8; decision 0023)', () => {
  it('shows its progress, sends the token with the device id and `next` once, then goes to the answered address', async () => {
    const answer = deferred<Response>();
    const calls = stubFetch({ ...FREE, [VERIFY]: () => answer.promise });
    const { replace } = stubLocation();
    renderApp(`/verify-new-email/${TOKEN}?next=%2Fsettings%2Femails`);
    expect(await screen.findByRole('heading', { level: 1, name: 'Verify New Email' })).toBeInTheDocument();
    expect(screen.getByRole('status')).toHaveTextContent('Verifying your new email…');
    answer.resolve(json(200, { otter: 'o'.repeat(43), redirectUrl: '/settings/emails' }));
    await waitFor(() => expect(replace).toHaveBeenCalledWith('/settings/emails'));
    const posts = calls.filter((call) => call.method === 'POST');
    expect(posts.map((call) => call.url)).toEqual(['/api/account/verifyNewEmail/check', '/api/account/verifyNewEmail']);
    expect(posts[0]?.body).toEqual({ token: TOKEN });
    expect(posts[1]?.body).toMatchObject({ token: TOKEN, next: '/settings/emails' });
    expect((posts[1]?.body as { deviceId: string }).deviceId).toMatch(/^[A-Za-z0-9_-]{12}$/);
  });

  it('goes home when the service answers no redirect (a `next` outside the allow-list)', async () => {
    const calls = stubFetch({ ...FREE, [VERIFY]: () => json(200, { otter: 'o'.repeat(43) }) });
    const { replace } = stubLocation();
    renderApp(`/verify-new-email/${TOKEN}?next=https%3A%2F%2Fevil.example%2Fx`);
    await waitFor(() => expect(replace).toHaveBeenCalledWith('/home'));
    expect(calls.find((call) => call.url === '/api/account/verifyNewEmail')?.body).toMatchObject({ next: 'https://evil.example/x' });
  });

  it('does not follow an answered address the allow-list refuses', async () => {
    stubFetch({ ...FREE, [VERIFY]: () => json(200, { otter: 'o'.repeat(43), redirectUrl: 'https://evil.example/x' }) });
    const { replace } = stubLocation();
    renderApp(`/verify-new-email/${TOKEN}`);
    await waitFor(() => expect(replace).toHaveBeenCalledWith('/home'));
  });

  it('says accountNotSetUp in the spec’s words', async () => {
    stubFetch({ ...FREE, [VERIFY]: () => json(409, { errorMessage: 'accountNotSetUp' }) });
    renderApp(`/verify-new-email/${TOKEN}`);
    expect(await screen.findByRole('alert')).toHaveTextContent('This account is not fully set up. Please contact your administrator.');
    expect(screen.getByRole('link', { name: 'Back to Sign In' })).toHaveAttribute('href', '/sign-in');
  });

  it.each([
    [400, 'invalidToken'],
    [410, 'tokenExpired'],
    [429, 'rateLimitExeeded'],
    [500, 'unexpectedError'],
  ])('answers %s %s with the link’s generic text', async (status, code) => {
    stubFetch({ ...FREE, [VERIFY]: () => json(status, { errorMessage: code }) });
    renderApp(`/verify-new-email/${TOKEN}`);
    expect(await screen.findByRole('alert')).toHaveTextContent('This link is invalid or has expired. Please check your email for a new link.');
  });

  it('shows a failed connection in its global words with a retry, not as a dead link (decision 0027)', async () => {
    let down = true;
    const calls = stubFetch({
      [CHECK]: () => (down ? Promise.reject(new TypeError('Failed to fetch')) : json(200, { email: 'ann@new.example', signedInElsewhere: false })),
      [VERIFY]: () => json(200, { otter: 'o'.repeat(43) }),
    });
    const { replace } = stubLocation();
    renderApp(`/verify-new-email/${TOKEN}`);
    expect(await screen.findByRole('alert')).toHaveTextContent('Network Error');
    expect(screen.getByRole('alert')).not.toHaveTextContent('This link is invalid');
    down = false;
    await userEvent.setup().click(screen.getByRole('button', { name: 'Try Again' }));
    await waitFor(() => expect(replace).toHaveBeenCalledWith('/home'));
    expect(calls.filter((call) => call.url === '/api/account/verifyNewEmail')).toHaveLength(1);
  });

  it('names the address and sends the link only when the person continues, in a browser signed in to another account (login CSRF)', async () => {
    const calls = stubFetch({
      [CHECK]: () => json(200, { email: 'mallory@example.com', signedInElsewhere: true }),
      [VERIFY]: () => json(200, { otter: 'o'.repeat(43) }),
    });
    const { replace } = stubLocation();
    renderApp(`/verify-new-email/${TOKEN}`);
    expect(await screen.findByText(/Sign in to this browser as/)).toHaveTextContent('Sign in to this browser as mallory@example.com?');
    expect(screen.getByRole('link', { name: 'Cancel' })).toHaveAttribute('href', '/sign-in');
    expect(calls.filter((call) => call.url === '/api/account/verifyNewEmail')).toHaveLength(0);
    await userEvent.setup().click(screen.getByRole('button', { name: 'Continue' }));
    await waitFor(() => expect(replace).toHaveBeenCalledWith('/home'));
    expect(calls.filter((call) => call.url === '/api/account/verifyNewEmail')).toHaveLength(1);
  });

  it('shows a dead link at once, without sending it', async () => {
    const calls = stubFetch({ [CHECK]: () => json(400, { errorMessage: 'invalidToken' }), [VERIFY]: () => json(200, { otter: 'o'.repeat(43) }) });
    renderApp(`/verify-new-email/${TOKEN}`);
    expect(await screen.findByRole('alert')).toHaveTextContent('This link is invalid or has expired. Please check your email for a new link.');
    expect(calls.filter((call) => call.url === '/api/account/verifyNewEmail')).toHaveLength(0);
  });
});
