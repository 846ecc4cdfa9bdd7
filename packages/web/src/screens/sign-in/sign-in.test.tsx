import { createHash } from 'node:crypto';
import { HASH_PASSWORD_PATTERN, RANDOM_ID_PATTERN } from '@foyer/contract/core';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { deferred, json, renderApp, stubFetch, stubLocation, TEST_CONFIG } from '../../test/harness';

const SIGN_IN = 'POST /api/account/signin';

function fields() {
  return {
    email: screen.getByLabelText('Email'),
    password: screen.getByLabelText('Password'),
    submit: screen.getByRole('button', { name: 'Sign In' }),
  };
}

async function fillAndSubmit(email = 'ann@example.com', password = 'correct horse') {
  const user = userEvent.setup();
  await user.type(screen.getByLabelText('Email'), email);
  await user.type(screen.getByLabelText('Password'), password);
  await user.click(screen.getByRole('button', { name: 'Sign In' }));
  return user;
}

describe('sign-in form (spec §2, §5)', () => {
  it('shows the fields, the other ways in and the links', () => {
    renderApp('/sign-in');
    expect(screen.getByRole('main')).toBeInTheDocument();
    expect(screen.getByRole('heading', { level: 1, name: 'Sign In' })).toBeInTheDocument();
    expect(screen.getByLabelText('Email')).toHaveAttribute('type', 'email');
    expect(screen.getByLabelText('Email')).toHaveAttribute('autocomplete', 'username');
    expect(screen.getByLabelText('Email')).toHaveFocus();
    expect(screen.getByLabelText('Password')).toHaveAttribute('type', 'password');
    expect(screen.getByLabelText('Password')).toHaveAttribute('autocomplete', 'current-password');
    expect(screen.getByRole('link', { name: 'Sign in with SSO' })).toHaveAttribute('href', '/sso-sign-in');
    expect(screen.getByRole('link', { name: 'Continue with Google' })).toHaveAttribute('href', '/social-auth');
    expect(screen.getByRole('link', { name: 'Sign Up' })).toHaveAttribute('href', '/sign-up');
    expect(screen.getByText("Don't have an account?", { exact: false })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Forgot password?' })).toHaveAttribute('href', '/forgot-password');
    expect(screen.getByRole('img', { name: 'Foyer' })).toBeInTheDocument();
  });

  it('keeps `from` on the SSO and Google links', () => {
    renderApp('/sign-in?from=%2Fsettings');
    expect(screen.getByRole('link', { name: 'Sign in with SSO' })).toHaveAttribute('href', '/sso-sign-in?from=%2Fsettings');
    expect(screen.getByRole('link', { name: 'Continue with Google' })).toHaveAttribute('href', '/social-auth?from=%2Fsettings');
  });

  it('keeps Sign In disabled until both trimmed fields are filled', async () => {
    renderApp('/sign-in');
    const user = userEvent.setup();
    const { email, password, submit } = fields();
    expect(submit).toBeDisabled();
    await user.type(email, '   ');
    await user.type(password, '   ');
    expect(submit).toBeDisabled();
    await user.clear(email);
    await user.type(email, 'ann@example.com');
    expect(submit).toBeDisabled();
    await user.type(password, 'x');
    expect(submit).toBeEnabled();
  });

  it('submits with Enter', async () => {
    const calls = stubFetch({ [SIGN_IN]: () => json(200, { otter: 'session' }) });
    stubLocation();
    renderApp('/sign-in');
    const user = userEvent.setup();
    await user.type(screen.getByLabelText('Email'), 'ann@example.com');
    await user.type(screen.getByLabelText('Password'), 'secret-password{Enter}');
    await waitFor(() => expect(calls.map((c) => `${c.method} ${c.url}`)).toEqual([SIGN_IN]));
  });

  it('shows the spinner and disables the inputs while submitting', async () => {
    const answer = deferred<Response>();
    stubFetch({ [SIGN_IN]: () => answer.promise });
    const { assign } = stubLocation();
    renderApp('/sign-in');
    await fillAndSubmit();

    const busy = await screen.findByRole('button', { name: 'Signing in…' });
    expect(busy).toBeDisabled();
    expect(busy).toHaveAttribute('aria-busy', 'true');
    expect(screen.getByLabelText('Email')).toBeDisabled();
    expect(screen.getByLabelText('Password')).toBeDisabled();

    answer.resolve(json(200, { otter: 'session' }));
    await waitFor(() => expect(assign).toHaveBeenCalledWith('/home'));
  });

  it('sends the trimmed email, the SHA-256 hex of the password and the device id, with the XSRF header', async () => {
    document.cookie = 'XSRF-TOKEN=xsrf-123';
    const calls = stubFetch({ [SIGN_IN]: () => json(200, { otter: 'session' }) });
    const { assign } = stubLocation();
    renderApp('/sign-in');
    await fillAndSubmit('  ann@example.com ', ' pässwörd 1 ');
    await waitFor(() => expect(assign).toHaveBeenCalled());

    const [request] = calls;
    const expectedHash = createHash('sha256').update(' pässwörd 1 ', 'utf8').digest('hex');
    expect(request?.body).toEqual({ email: 'ann@example.com', hashPassword: expectedHash, deviceId: localStorage.getItem('deviceId') });
    expect(expectedHash).toMatch(HASH_PASSWORD_PATTERN);
    expect(localStorage.getItem('deviceId')).toMatch(RANDOM_ID_PATTERN);
    expect(request?.headers.get('X-XSRF-TOKEN')).toBe('xsrf-123');
    expect(request?.headers.get('X-DeviceId')).toBe(localStorage.getItem('deviceId'));
    expect(request?.headers.get('Accept')).toBe('application/json');
    expect(request?.headers.get('Content-Type')).toBe('application/json');
    expect(request?.credentials).toBe('same-origin');
    // The page never keeps the session token itself: the server's HttpOnly cookie does.
    expect(localStorage.getItem('otter')).toBeNull();
  });
});

describe('sign-in errors (spec §8)', () => {
  const cases: [string, () => Response | Promise<Response>, string][] = [
    ['deactivatedAccount', () => json(403, { errorMessage: 'deactivatedAccount' }), 'Your account is deactivated. Please contact your organization administrator.'],
    ['accountLocked', () => json(423, { errorMessage: 'accountLocked' }), 'Due to too many failed sign in attempts, your account has been locked for 30 minutes.'],
    ['unverifiedAccount', () => json(403, { errorMessage: 'unverifiedAccount' }), 'This email is unverified. Please check your inbox.'],
    ['rateLimitExeeded', () => json(429, { errorMessage: 'rateLimitExeeded' }), 'Too many attempts. Please try again later.'],
    ['unexpectedError', () => json(500, { errorMessage: 'unexpectedError' }), 'There was an unexpected error.'],
    ['xsrfMismatch', () => json(403, { errorMessage: 'xsrfMismatch' }), 'There was an unexpected error.'],
    ['a non-JSON 502', () => new Response('<html>Bad gateway</html>', { status: 502 }), 'There was an unexpected error.'],
    ['a network failure', () => Promise.reject(new TypeError('Failed to fetch')), 'Network Error'],
    ['an aborted request', () => Promise.reject(new DOMException('aborted', 'AbortError')), 'Request aborted'],
  ];

  it.each(cases)('%s shows its exact text', async (_name, answer, text) => {
    stubFetch({ [SIGN_IN]: answer });
    renderApp('/sign-in');
    await fillAndSubmit();
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent(text);
    expect(alert).toHaveFocus();
    // Back to the form, which works again.
    expect(screen.getByRole('button', { name: 'Sign In' })).toBeEnabled();
    expect(screen.getByLabelText('Password')).toBeEnabled();
  });

  it.each(['invalidCredentials', 'invalidRequest'])('%s shows the list of reasons with both links', async (code) => {
    stubFetch({ [SIGN_IN]: () => json(code === 'invalidCredentials' ? 401 : 400, { errorMessage: code }) });
    renderApp('/sign-in?from=%2Fsettings');
    await fillAndSubmit();
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent("We couldn't sign you in. This can happen when:");
    const items = within(alert).getAllByRole('listitem');
    expect(items.map((item) => item.textContent)).toEqual([
      'There is no account for this email address.',
      'The password is not right. Reset your password',
      'Your company signs you in with single sign-on (SSO). Sign in with SSO',
    ]);
    expect(within(alert).getByRole('link', { name: 'Reset your password' })).toHaveAttribute('href', '/forgot-password');
    expect(within(alert).getByRole('link', { name: 'Sign in with SSO' })).toHaveAttribute('href', '/sso-sign-in?from=%2Fsettings');
  });

  it('clears the previous error when submitting again', async () => {
    const answers = [json(401, { errorMessage: 'invalidCredentials' }), json(423, { errorMessage: 'accountLocked' })];
    stubFetch({ [SIGN_IN]: () => answers.shift() ?? json(500, {}) });
    renderApp('/sign-in');
    const user = await fillAndSubmit();
    expect(await screen.findByRole('alert')).toHaveTextContent('This can happen when');
    await user.click(screen.getByRole('button', { name: 'Sign In' }));
    await waitFor(() => expect(screen.getByRole('alert')).toHaveTextContent('has been locked for 30 minutes'));
    expect(screen.getAllByRole('alert')).toHaveLength(1);
  });
});

describe('where sign-in leads (spec §4, §5)', () => {
  it.each([
    ['//evil.example', '/home'],
    ['https://evil.example/x', '/home'],
    ['javascript:alert(1)', '/home'],
    ['/\t/evil.example', '/home'],
    ['/settings?tab=profile', '/settings?tab=profile'],
    ['https://app.foyer.test/groups', 'https://app.foyer.test/groups'],
    ['http://localhost:3000/home?x=1', 'http://localhost:3000/home?x=1'],
  ])('from=%s goes to %s', async (from, expected) => {
    stubFetch({ [SIGN_IN]: () => json(200, { otter: 'session' }) });
    const { assign } = stubLocation();
    renderApp(`/sign-in?from=${encodeURIComponent(from)}`);
    await fillAndSubmit();
    await waitFor(() => expect(assign).toHaveBeenCalledWith(expected));
  });

  it('goes to the configured default home without `from`', async () => {
    stubFetch({ [SIGN_IN]: () => json(200, { otter: 'session' }) });
    const { assign } = stubLocation();
    renderApp('/sign-in', { config: { ...TEST_CONFIG, defaultHome: 'https://app.foyer.test/' } });
    await fillAndSubmit();
    await waitFor(() => expect(assign).toHaveBeenCalledWith('https://app.foyer.test/'));
  });

  it('forwards to SSO sign-in when SSO is preferred, keeping from and reason', () => {
    localStorage.setItem('preferSso', 'true');
    const { replace } = stubLocation();
    renderApp('/sign-in?from=%2Fsettings&reason=sessionExpired&other=1');
    // A full page load (sign-in runs without a router), replacing sign-in in the history.
    expect(replace).toHaveBeenCalledWith('/sso-sign-in?from=%2Fsettings&reason=sessionExpired');
    expect(screen.getByRole('status')).toHaveTextContent('Loading…');
    expect(screen.queryByLabelText('Email')).not.toBeInTheDocument();
  });

  it('bounces to the default home while a forum sign-in is pending', () => {
    localStorage.setItem('discoursePending', 'true');
    const { replace } = stubLocation();
    renderApp('/sign-in');
    expect(replace).toHaveBeenCalledWith('/home');
    expect(screen.queryByLabelText('Email')).not.toBeInTheDocument();
  });
});

describe('session expired notice (spec §8)', () => {
  it('explains reason=sessionExpired', () => {
    renderApp('/sign-in?reason=sessionExpired');
    expect(screen.getByRole('status')).toHaveTextContent('Your session has expired. Please sign in again.');
  });

  it('shows the stored flag once, then forgets it', () => {
    localStorage.setItem('sessionExpired', 'true');
    renderApp('/sign-in');
    expect(screen.getByRole('status')).toHaveTextContent('Your session has expired. Please sign in again.');
    expect(localStorage.getItem('sessionExpired')).toBeNull();
  });

  it('says nothing for other reasons', () => {
    renderApp('/sign-in?reason=somethingElse');
    expect(screen.queryByRole('status')).not.toBeInTheDocument();
  });
});
