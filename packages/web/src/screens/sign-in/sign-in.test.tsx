import { createHash } from 'node:crypto';
import { HASH_PASSWORD_PATTERN, RANDOM_ID_PATTERN } from '@foyer/contract/core';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { deferred, json, renderApp, SESSION, stubFetch, stubLocation, TEST_CONFIG } from '../../test/harness';

const SIGN_IN = 'POST /api/account/signin';

function fields() {
  return {
    email: screen.getByLabelText('Email'),
    password: screen.getByLabelText('Password'),
    submit: screen.getByRole('button', { name: 'Sign In' }),
  };
}

/** Opens sign-in and waits for its form, which shows once the session check says 'not signed in'. */
async function openSignIn(...args: Parameters<typeof renderApp>) {
  const result = renderApp(...args);
  await screen.findByLabelText('Email');
  return result;
}

async function fillAndSubmit(email = 'ann@example.com', password = 'correct horse') {
  const user = userEvent.setup();
  await user.type(screen.getByLabelText('Email'), email);
  await user.type(screen.getByLabelText('Password'), password);
  await user.click(screen.getByRole('button', { name: 'Sign In' }));
  return user;
}

describe('sign-in form (spec §2, §5)', () => {
  it('shows the fields, the other ways in and the links', async () => {
    await openSignIn('/sign-in');
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
    expect(screen.getByRole('button', { name: 'Show password' })).not.toHaveAttribute('aria-pressed');
    expect(screen.getByText("Don't have an account?", { exact: false })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Forgot Password?' })).toHaveAttribute('href', '/forgot-password');
    expect(screen.getByRole('img', { name: 'Foyer' })).toBeInTheDocument();
  });

  it("keeps a native client's parameters on the SSO and Google links, so their token reaches the app", async () => {
    await openSignIn('/sign-in?from=foyer%3A%2F%2Fsignin&native=true&useTransferToken=true&clientAuthenticationPeriodId=p-1');
    expect(screen.getByRole('link', { name: 'Continue with Google' })).toHaveAttribute(
      'href',
      '/social-auth?from=foyer%3A%2F%2Fsignin&native=true&useTransferToken=true&clientAuthenticationPeriodId=p-1',
    );
    expect(screen.getByRole('link', { name: 'Sign in with SSO' })).toHaveAttribute(
      'href',
      '/sso-sign-in?from=foyer%3A%2F%2Fsignin&native=true&useTransferToken=true&clientAuthenticationPeriodId=p-1',
    );
  });

  it('keeps `from` on the SSO, Google and Sign Up links', async () => {
    await openSignIn('/sign-in?from=%2Fsettings');
    expect(screen.getByRole('link', { name: 'Sign Up' })).toHaveAttribute('href', '/sign-up?from=%2Fsettings');
    expect(screen.getByRole('link', { name: 'Sign in with SSO' })).toHaveAttribute('href', '/sso-sign-in?from=%2Fsettings');
    expect(screen.getByRole('link', { name: 'Continue with Google' })).toHaveAttribute('href', '/social-auth?from=%2Fsettings');
  });

  it('keeps Sign In disabled until both trimmed fields are filled', async () => {
    await openSignIn('/sign-in');
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
    await openSignIn('/sign-in');
    const user = userEvent.setup();
    await user.type(screen.getByLabelText('Email'), 'ann@example.com');
    await user.type(screen.getByLabelText('Password'), 'secret-password{Enter}');
    await waitFor(() => expect(calls.map((c) => `${c.method} ${c.url}`)).toEqual([SIGN_IN]));
  });

  it('shows the spinner and disables the inputs while submitting', async () => {
    const answer = deferred<Response>();
    stubFetch({ [SIGN_IN]: () => answer.promise });
    const { replace } = stubLocation();
    await openSignIn('/sign-in');
    await fillAndSubmit();

    const busy = await screen.findByRole('button', { name: 'Signing in…' });
    expect(busy).toBeDisabled();
    expect(busy).toHaveAttribute('aria-busy', 'true');
    expect(screen.getByLabelText('Email')).toBeDisabled();
    expect(screen.getByLabelText('Password')).toBeDisabled();

    answer.resolve(json(200, { otter: 'session' }));
    await waitFor(() => expect(replace).toHaveBeenCalledWith('/home'));
  });

  it('sends the trimmed email, the SHA-256 hex of the password and the device id, with the XSRF header', async () => {
    document.cookie = 'XSRF-TOKEN=xsrf-123';
    const calls = stubFetch({ [SIGN_IN]: () => json(200, { otter: 'session' }) });
    const { replace } = stubLocation();
    await openSignIn('/sign-in');
    await fillAndSubmit('  ann@example.com ', ' pässwörd 1 ');
    await waitFor(() => expect(replace).toHaveBeenCalled());

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
    [
      'deactivatedAccount',
      () => json(403, { errorMessage: 'deactivatedAccount' }),
      'Your account is deactivated. Please contact your organization administrator.',
    ],
    [
      'accountLocked',
      () => json(423, { errorMessage: 'accountLocked' }),
      'Due to too many failed sign in attempts, your account has been locked for 30 minutes.',
    ],
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
    await openSignIn('/sign-in');
    await fillAndSubmit();
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent(text);
    // Focus is back in the password field, its text selected to retype; the alert describes it.
    const password = screen.getByLabelText('Password');
    await waitFor(() => expect(password).toHaveFocus());
    expect(password).toHaveAccessibleDescription(expect.stringContaining(text));
    expect((password as HTMLInputElement).selectionStart).toBe(0);
    expect((password as HTMLInputElement).selectionEnd).toBe('correct horse'.length);
    // Back to the form, which works again.
    expect(screen.getByRole('button', { name: 'Sign In' })).toBeEnabled();
    expect(screen.getByLabelText('Password')).toBeEnabled();
  });

  it.each(['invalidCredentials', 'invalidRequest'])('%s shows the list of reasons with both links', async (code) => {
    stubFetch({ [SIGN_IN]: () => json(code === 'invalidCredentials' ? 401 : 400, { errorMessage: code }) });
    await openSignIn('/sign-in?from=%2Fsettings');
    await fillAndSubmit();
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent("We couldn't sign you in. This can happen when:");
    const items = within(alert).getAllByRole('listitem');
    expect(items.map((item) => item.textContent)).toEqual([
      'There is no account for this email address.',
      'The password is not right. Reset Your Password',
      'Your company signs you in with single sign-on (SSO). Sign in with SSO',
    ]);
    expect(within(alert).getByRole('link', { name: 'Reset Your Password' })).toHaveAttribute('href', '/forgot-password');
    // The SSO link fills in the address that was tried (decision 0022).
    expect(within(alert).getByRole('link', { name: 'Sign in with SSO' })).toHaveAttribute('href', '/sso-sign-in?from=%2Fsettings&email=ann%40example.com');
  });

  it('ssoRequired says, for signing in, that the organisation uses SSO, focusing a link that fills in the typed email (decision 0022)', async () => {
    stubFetch({ [SIGN_IN]: () => json(409, { errorMessage: 'ssoRequired' }) });
    await openSignIn('/sign-in?from=%2Fsettings');
    await fillAndSubmit('  Ann@Corp.example ');
    const alert = await screen.findByRole('alert');
    // Not spec §8's sign-up wording ('… cannot be used to sign up.'): this is a sign-in.
    expect(alert).toHaveTextContent(
      /^Your organization signs you in through SSO, so there is no password to enter here\. Sign in with your company’s SSO instead: Sign in with SSO$/,
    );
    // Not the list of reasons: the answer depends on the domain alone, so it is said plainly.
    expect(within(alert).queryByRole('listitem')).not.toBeInTheDocument();
    const link = within(alert).getByRole('link', { name: 'Sign in with SSO' });
    expect(link).toHaveAttribute('href', '/sso-sign-in?from=%2Fsettings&email=Ann%40Corp.example');
    // No password helps here: the way forward has the focus, and the field still says why.
    await waitFor(() => expect(link).toHaveFocus());
    expect(screen.getByLabelText('Password')).toHaveAccessibleDescription(expect.stringContaining('no password to enter here'));
  });

  it("keeps the app's parameters on the SSO link of ssoRequired", async () => {
    stubFetch({ [SIGN_IN]: () => json(409, { errorMessage: 'ssoRequired' }) });
    await openSignIn('/sign-in?native=true&useTransferToken=true&clientAuthenticationPeriodId=p-1');
    await fillAndSubmit('ann@corp.example');
    const alert = await screen.findByRole('alert');
    expect(within(alert).getByRole('link', { name: 'Sign in with SSO' })).toHaveAttribute(
      'href',
      '/sso-sign-in?email=ann%40corp.example&native=true&useTransferToken=true&clientAuthenticationPeriodId=p-1',
    );
  });

  it('clears the previous error when submitting again', async () => {
    const answers = [json(401, { errorMessage: 'invalidCredentials' }), json(423, { errorMessage: 'accountLocked' })];
    stubFetch({ [SIGN_IN]: () => answers.shift() ?? json(500, {}) });
    await openSignIn('/sign-in');
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
    const { replace } = stubLocation();
    await openSignIn(`/sign-in?from=${encodeURIComponent(from)}`);
    await fillAndSubmit();
    await waitFor(() => expect(replace).toHaveBeenCalledWith(expected));
  });

  it('goes to the configured default home without `from`', async () => {
    stubFetch({ [SIGN_IN]: () => json(200, { otter: 'session' }) });
    const { replace } = stubLocation();
    await openSignIn('/sign-in', { config: { ...TEST_CONFIG, defaultHome: 'https://app.foyer.test/' } });
    await fillAndSubmit();
    await waitFor(() => expect(replace).toHaveBeenCalledWith('https://app.foyer.test/'));
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

  it('bounces once per forum-pending flag, so a stale flag with no session cannot loop', async () => {
    localStorage.setItem('discoursePending', 'true');
    const { replace } = stubLocation();
    const first = renderApp('/sign-in');
    expect(replace).toHaveBeenCalledWith('/home');
    expect(localStorage.getItem('discoursePending')).toBeNull();
    first.unmount();
    // /home, signed out, sends the visitor back here: this time the form stays.
    replace.mockClear();
    await openSignIn('/sign-in?from=%2Fhome');
    expect(replace).not.toHaveBeenCalledWith('/home');
    expect(screen.getByLabelText('Email')).toBeInTheDocument();
  });
});

describe('session expired notice (spec §8)', () => {
  it('explains reason=sessionExpired', async () => {
    await openSignIn('/sign-in?reason=sessionExpired');
    expect(screen.getByRole('status')).toHaveTextContent('Your session has expired. Please sign in again.');
  });

  it('shows the stored flag once, then forgets it', async () => {
    localStorage.setItem('sessionExpired', 'true');
    await openSignIn('/sign-in');
    expect(screen.getByRole('status')).toHaveTextContent('Your session has expired. Please sign in again.');
    expect(localStorage.getItem('sessionExpired')).toBeNull();
  });

  it('says nothing for other reasons', async () => {
    await openSignIn('/sign-in?reason=somethingElse');
    expect(screen.queryByRole('status')).not.toBeInTheDocument();
  });
});

const SIGNED_IN = () =>
  json(200, { user: { id: 'u-1', email: 'ann@example.com', firstName: 'Ann', lastName: 'Lee' }, expiresAt: '2030-01-01T00:00:00.000Z' });

describe('signed in already (decision 0020)', () => {
  it.each([
    ['/sign-in', '/home'],
    ['/sign-in?from=%2Fsettings', '/settings'],
    ['/sign-in?from=https%3A%2F%2Fevil.example%2F', '/home'],
    // Never back to sign-in or sign-up: that would go round in a loop.
    ['/sign-in?from=%2Fsign-in', '/home'],
    ['/sign-in?from=%2Fsign-up%3Fplan%3Dindividual', '/home'],
  ])('%s goes on to %s without showing the form', async (path, expected) => {
    const calls = stubFetch({ [SESSION]: SIGNED_IN });
    const { replace } = stubLocation();
    renderApp(path);
    expect(screen.queryByLabelText('Email')).not.toBeInTheDocument();
    await waitFor(() => expect(replace).toHaveBeenCalledWith(expected));
    expect(calls.map((call) => `${call.method} ${call.url}`)).toEqual([SESSION]);
    expect(screen.queryByLabelText('Email')).not.toBeInTheDocument();
  });

  it('shows the form when the session cannot be checked', async () => {
    stubFetch({ [SESSION]: () => Promise.reject(new TypeError('Failed to fetch')) });
    const { replace } = stubLocation();
    renderApp('/sign-in');
    const email = await screen.findByLabelText('Email');
    await waitFor(() => expect(email).toHaveFocus());
    expect(replace).not.toHaveBeenCalled();
  });

  it('leaves sign-in out of the history after signing in, with the password cleared', async () => {
    const answer = deferred<Response>();
    stubFetch({ [SIGN_IN]: () => answer.promise });
    const { replace } = stubLocation();
    await openSignIn('/sign-in');
    await fillAndSubmit();
    answer.resolve(json(200, { otter: 'session' }));
    await waitFor(() => expect(replace).toHaveBeenCalledWith('/home'));
    expect(screen.getByLabelText('Password')).toHaveValue('');
  });

  it('asks again when the page comes back from the back-forward cache, and goes on', async () => {
    let signedIn = false;
    stubFetch({ [SESSION]: () => (signedIn ? SIGNED_IN() : json(401, { errorMessage: 'notSignedIn' })) });
    const { replace } = stubLocation();
    await openSignIn('/sign-in');
    await userEvent.setup().type(screen.getByLabelText('Password'), 'typed before leaving');
    signedIn = true;
    window.dispatchEvent(new PageTransitionEvent('pageshow', { persisted: true }));
    await waitFor(() => expect(replace).toHaveBeenCalledWith('/home'));
    expect(screen.queryByLabelText('Password')).not.toBeInTheDocument();
  });
});

describe('a failure says what to do next (spec §8)', () => {
  it("'Network Error' comes with a second line", async () => {
    stubFetch({ [SIGN_IN]: () => Promise.reject(new TypeError('Failed to fetch')) });
    await openSignIn('/sign-in');
    await fillAndSubmit();
    const alert = await screen.findByRole('alert');
    expect(within(alert).getByText('Network Error')).toBeInTheDocument();
    expect(within(alert).getByText('Check your internet connection, then try again.')).toBeInTheDocument();
  });
});

describe('an unverified sign-in has a way forward (decision 0020)', () => {
  const RESEND = 'POST /api/account/resendVerification/bySignIn';
  const unverified = () => json(403, { errorMessage: 'unverifiedAccount' });

  it('resends for the attempt that failed, then confirms in place of the button', async () => {
    const answer = deferred<Response>();
    const calls = stubFetch({ [SIGN_IN]: unverified, [RESEND]: () => answer.promise });
    await openSignIn('/sign-in');
    const user = await fillAndSubmit(' ann@example.com ', 'correct horse');
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('This email is unverified. Please check your inbox.');
    // Edited afterwards, the fields do not change whose link is sent: the attempt that failed.
    await user.type(screen.getByLabelText('Email'), 'x');
    await user.click(within(alert).getByRole('button', { name: 'Resend Verification Email' }));
    expect(within(alert).getByRole('button', { name: 'Resend Verification Email' })).toHaveAttribute('aria-busy', 'true');
    answer.resolve(json(200, {}));
    const sent = await screen.findByText('We sent a new verification link. Please check your inbox.');
    await waitFor(() => expect(sent.closest('p')).toHaveFocus());
    expect(sent.closest('[role="status"]')).not.toBeNull();
    expect(screen.queryByRole('button', { name: 'Resend Verification Email' })).not.toBeInTheDocument();
    expect(calls.find((call) => `${call.method} ${call.url}` === RESEND)?.body).toEqual({
      email: 'ann@example.com',
      hashPassword: createHash('sha256').update('correct horse', 'utf8').digest('hex'),
    });
  });

  it('a refused resend says why, takes the focus the busy button lost, and keeps the button', async () => {
    stubFetch({ [SIGN_IN]: unverified, [RESEND]: () => json(429, { errorMessage: 'rateLimitExeeded' }) });
    await openSignIn('/sign-in');
    await fillAndSubmit();
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Resend Verification Email' }));
    const said = await screen.findByText('Too many attempts. Please try again later.');
    await waitFor(() => expect(document.activeElement?.contains(said)).toBe(true));
    expect(screen.getByRole('button', { name: 'Resend Verification Email' })).toBeEnabled();
  });

  it('is offered only for an unverified email', async () => {
    stubFetch({ [SIGN_IN]: () => json(423, { errorMessage: 'accountLocked' }) });
    await openSignIn('/sign-in');
    await fillAndSubmit();
    await screen.findByRole('alert');
    expect(screen.queryByRole('button', { name: 'Resend Verification Email' })).not.toBeInTheDocument();
  });
});
