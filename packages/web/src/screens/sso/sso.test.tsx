import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SESSION, deferred, json, renderApp, stubFetch, stubLocation } from '../../test/harness';

const START = 'POST /api/account/sso/start';
const EXCHANGE = 'POST /api/account/exchangeSSOTransferToken';
const CHECK = 'POST /api/account/exchangeSSOTransferToken/check';
const IDP = 'https://idp.corp.test/sso?SAMLRequest=abc';
const TOKEN = 'Tr4nsferTokenABCDEFGHIJKLMNOP_-';

afterEach(() => {
  sessionStorage.clear();
  vi.useRealTimers();
});

/** Opens SSO sign-in and waits for its form, which shows once the session check says 'not signed in'. */
async function openSsoSignIn(path = '/sso-sign-in') {
  const result = renderApp(path);
  await screen.findByLabelText('Email');
  return result;
}

describe('/sso-sign-in (spec §2, §5)', () => {
  it('shows the email, Remember email, Sign In, the way back to password sign-in and the help', async () => {
    await openSsoSignIn('/sso-sign-in?from=%2Fsettings&reason=x');
    expect(screen.getByRole('heading', { level: 1, name: 'Sign in with SSO' })).toBeInTheDocument();
    expect(screen.getByLabelText('Email')).toHaveFocus();
    expect(screen.getByRole('checkbox', { name: 'Remember email' })).not.toBeChecked();
    expect(screen.getByRole('link', { name: 'Sign in without SSO' })).toHaveAttribute('href', '/sign-in?from=%2Fsettings&reason=x');
    const help = screen.getByRole('button', { name: "What's SSO?" });
    expect(help).toHaveAttribute('aria-expanded', 'false');
    await userEvent.setup().click(help);
    expect(help).toHaveAttribute('aria-expanded', 'true');
    expect(screen.getByText(/Single sign-on \(SSO\) lets you sign in/)).toBeVisible();
  });

  it('keeps Sign In disabled until the trimmed email is non-empty', async () => {
    await openSsoSignIn();
    const user = userEvent.setup();
    const submit = screen.getByRole('button', { name: 'Sign In' });
    expect(submit).toBeDisabled();
    await user.type(screen.getByLabelText('Email'), '   ');
    expect(submit).toBeDisabled();
    await user.type(screen.getByLabelText('Email'), 'a');
    expect(submit).toBeEnabled();
  });

  it('fills in the `email` that the SSO links carry', async () => {
    await openSsoSignIn('/sso-sign-in?email=ann%40corp.test');
    expect(screen.getByLabelText('Email')).toHaveValue('ann@corp.test');
    expect(screen.getByRole('button', { name: 'Sign In' })).toBeEnabled();
  });

  it('says the session expired when sent here with that reason', async () => {
    await openSsoSignIn('/sso-sign-in?reason=sessionExpired');
    expect(screen.getByRole('status')).toHaveTextContent('Your session has expired. Please sign in again.');
  });

  it('starts SSO with the trimmed email and goes to the answered address, keeping `from` for the return', async () => {
    const calls = stubFetch({ [START]: () => json(200, { url: IDP }) });
    const { assign } = stubLocation();
    await openSsoSignIn('/sso-sign-in?from=%2Fsettings');
    const user = userEvent.setup();
    await user.type(screen.getByLabelText('Email'), '  ann@corp.test ');
    await user.click(screen.getByRole('button', { name: 'Sign In' }));
    await waitFor(() => expect(assign).toHaveBeenCalledWith(IDP));
    expect(calls.find((call) => call.method === 'POST')?.body).toEqual({ email: 'ann@corp.test' });
    expect(sessionStorage.getItem('ssoFrom')).toBe('/settings');
    // Not ticked: nothing remembered.
    expect(localStorage.getItem('preferSso')).toBeNull();
    expect(localStorage.getItem('ssoEmail')).toBeNull();
  });

  it("sends a native client's kind, its return address and its period id in the start call", async () => {
    const calls = stubFetch({ [START]: () => json(200, { url: IDP }) });
    const { assign } = stubLocation();
    await openSsoSignIn('/sso-sign-in?native=true&returnUrl=foyer%3A%2F%2Fdone&clientAuthenticationPeriodId=p-1&email=ann%40corp.test');
    await userEvent.setup().click(screen.getByRole('button', { name: 'Sign In' }));
    await waitFor(() => expect(assign).toHaveBeenCalledWith(IDP));
    const body = calls.find((call) => call.method === 'POST')?.body as { state: string; clientAuthenticationPeriodId: string };
    expect(body.clientAuthenticationPeriodId).toBe('p-1');
    expect(JSON.parse(body.state)).toEqual({ clientKind: 'native', returnUrl: 'foyer://done' });
  });

  it("keeps the app's parameters on 'Sign in without SSO', so the password or Google sign-in is still the app's", async () => {
    stubFetch({});
    await openSsoSignIn('/sso-sign-in?native=true&useTransferToken=true&clientAuthenticationPeriodId=p-1&from=foyer%3A%2F%2Fcb');
    expect(screen.getByRole('link', { name: 'Sign in without SSO' })).toHaveAttribute(
      'href',
      '/sign-in?from=foyer%3A%2F%2Fcb&native=true&useTransferToken=true&clientAuthenticationPeriodId=p-1',
    );
  });

  it('shows the busy button while the start call is out', async () => {
    const pending = deferred<Response>();
    stubFetch({ [START]: () => pending.promise });
    stubLocation();
    await openSsoSignIn('/sso-sign-in?email=ann%40corp.test');
    await userEvent.setup().click(screen.getByRole('button', { name: 'Sign In' }));
    expect(await screen.findByRole('button', { name: "Taking you to your company's sign-in page…" })).toBeDisabled();
    expect(screen.getByLabelText('Email')).toBeDisabled();
    pending.resolve(json(200, { url: IDP }));
  });

  it.each([
    ['ssoNotRecognized', 404, "Sorry, we didn't recognize your account. Please connect from your SSO dashboard."],
    ['rateLimitExeeded', 429, 'Too many attempts. Please try again later.'],
    ['unexpectedError', 500, 'There was an unexpected error.'],
  ])('explains %s and leaves the email to correct', async (code, status, text) => {
    stubFetch({ [START]: () => json(status, { errorMessage: code }) });
    const { assign } = stubLocation();
    await openSsoSignIn('/sso-sign-in?email=ann%40unknown.test');
    await userEvent.setup().click(screen.getByRole('checkbox', { name: 'Remember email' }));
    await userEvent.setup().click(screen.getByRole('button', { name: 'Sign In' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(text);
    // Focus returns to the field once the refusal has painted.
    await waitFor(() => expect(screen.getByLabelText('Email')).toHaveFocus());
    expect(screen.getByLabelText('Email')).toHaveAccessibleDescription(text);
    expect(assign).not.toHaveBeenCalled();
    // A sign-in that did not start remembers nothing: sign-in would forward to a dead end.
    expect(localStorage.getItem('preferSso')).toBeNull();
  });

  it('does not follow an answered address that is not http(s)', async () => {
    stubFetch({ [START]: () => json(200, { url: 'javascript:alert(1)' }) });
    const { assign } = stubLocation();
    await openSsoSignIn('/sso-sign-in?email=ann%40corp.test');
    await userEvent.setup().click(screen.getByRole('button', { name: 'Sign In' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('There was an unexpected error.');
    expect(assign).not.toHaveBeenCalled();
  });
});

describe('remembered SSO (spec §3, §4, §9)', () => {
  it('Remember email stores the preferred-SSO flag and the email when the sign-in starts', async () => {
    stubFetch({ [START]: () => json(200, { url: IDP }) });
    const { assign } = stubLocation();
    await openSsoSignIn();
    const user = userEvent.setup();
    await user.type(screen.getByLabelText('Email'), 'ann@corp.test');
    await user.click(screen.getByRole('checkbox', { name: 'Remember email' }));
    await user.click(screen.getByRole('button', { name: 'Sign In' }));
    await waitFor(() => expect(assign).toHaveBeenCalledWith(IDP));
    expect(localStorage.getItem('preferSso')).toBe('true');
    expect(localStorage.getItem('ssoEmail')).toBe('ann@corp.test');
  });

  it('fills in the remembered email with the box ticked', async () => {
    localStorage.setItem('preferSso', 'true');
    localStorage.setItem('ssoEmail', 'ann@corp.test');
    await openSsoSignIn();
    expect(screen.getByLabelText('Email')).toHaveValue('ann@corp.test');
    expect(screen.getByRole('checkbox', { name: 'Remember email' })).toBeChecked();
  });

  it('forgets the remembered email about 50 ms after an edit', async () => {
    localStorage.setItem('preferSso', 'true');
    localStorage.setItem('ssoEmail', 'ann@corp.test');
    await openSsoSignIn();
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    // One edit, as a keystroke makes it; synchronous, so the clock is the test's alone.
    fireEvent.change(screen.getByLabelText('Email'), { target: { value: 'ann@corp.test2' } });
    vi.advanceTimersByTime(40);
    expect(localStorage.getItem('preferSso')).toBe('true');
    vi.advanceTimersByTime(20);
    expect(localStorage.getItem('preferSso')).toBeNull();
    expect(localStorage.getItem('ssoEmail')).toBeNull();
    // The box stays as the person left it: Sign In would remember the new address.
    expect(screen.getByRole('checkbox', { name: 'Remember email' })).toBeChecked();
  });

  it('Sign in without SSO clears the flag so that password sign-in stays reachable', async () => {
    localStorage.setItem('preferSso', 'true');
    localStorage.setItem('ssoEmail', 'ann@corp.test');
    await openSsoSignIn('/sso-sign-in?from=%2Fsettings');
    const link = screen.getByRole('link', { name: 'Sign in without SSO' });
    // jsdom does not follow links; the click's handler is what runs before the browser would.
    link.addEventListener('click', (event) => event.preventDefault());
    await userEvent.setup().click(link);
    expect(localStorage.getItem('preferSso')).toBeNull();
    expect(link).toHaveAttribute('href', '/sign-in?from=%2Fsettings');
  });

  it('sends a signed-in visitor on, as sign-in would (the forward skipped its check)', async () => {
    stubFetch({ [SESSION]: () => json(200, { user: {}, expiresAt: '' }) });
    const { replace } = stubLocation();
    renderApp('/sso-sign-in?from=%2Fsettings');
    await waitFor(() => expect(replace).toHaveBeenCalledWith('/settings'));
    expect(screen.queryByLabelText('Email')).not.toBeInTheDocument();
  });
});

/**
 * The landing page's second (spec §9) on a clock the test moves. It also runs with real time, so
 * the lazily loaded screen and `findBy…` work; the screen is found well before a second passes.
 */
function landingClock() {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'], shouldAdvanceTime: true });
}

describe('/sso-landing (spec §4, §8, §9)', () => {
  it.each([
    ['1001', 'Your account is not a member of this organization. Ask your organization administrator to add you.'],
    ['1002', 'The sign-in request could not be read. Your SSO connection is probably misconfigured; please contact your SSO admin.'],
    ['1003', 'We could not create your account. Please contact support.'],
    ['1004', 'Another account already uses this email address. Please contact support.'],
    ['1005', "Your organization's SSO connection is misconfigured. Please contact your SSO admin."],
    ['1099', 'An unknown error has occurred. Please contact support.'],
  ])('code %s shows its text and the raw code', async (code, text) => {
    renderApp(`/sso-landing?code=${code}`);
    expect(await screen.findByRole('heading', { level: 1, name: "We couldn't sign you in with SSO" })).toBeInTheDocument();
    const alert = screen.getByRole('alert');
    expect(alert).toHaveTextContent(text);
    expect(within(alert).getByText(`Error code: ${code}`)).toBeInTheDocument();
    // The page opens on the failure: focus is on it, not on the page body.
    await waitFor(() => expect(alert).toHaveFocus());
    expect(screen.getByRole('link', { name: 'Sign in with SSO' })).toHaveAttribute('href', '/sso-sign-in');
    expect(screen.getByRole('link', { name: 'Back to Sign In' })).toHaveAttribute('href', '/sign-in');
  });

  it('shows the unknown error without echoing a code that is not a number, or with no code and no token', async () => {
    renderApp('/sso-landing?code=Call%20555-0100%20now');
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('An unknown error has occurred. Please contact support.');
    expect(alert).not.toHaveTextContent('555');
  });

  it('after one second goes to /ssol/:transferToken by default', async () => {
    landingClock();
    const { replace, assign } = stubLocation();
    renderApp(`/sso-landing?transferToken=${TOKEN}`);
    expect(await screen.findByRole('heading', { level: 1, name: 'Signing in' })).toBeInTheDocument();
    expect(screen.getByRole('status')).toHaveTextContent('Your company has confirmed it is you. Taking you on…');
    expect(replace).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1000);
    expect(replace).toHaveBeenCalledTimes(1);
    expect(replace).toHaveBeenCalledWith(`/ssol/${TOKEN}`);
    expect(assign).not.toHaveBeenCalled();
  });

  it("opens the desktop app's transfer address for a native client, with a link if it did not open", async () => {
    landingClock();
    const { assign } = stubLocation();
    renderApp(`/sso-landing?transferToken=${TOKEN}&native=true`);
    const open = await screen.findByRole('link', { name: 'Open the app' });
    const target = `foyer://sso-transfer?transferToken=${TOKEN}`;
    expect(open).toHaveAttribute('href', target);
    vi.advanceTimersByTime(1000);
    expect(assign).toHaveBeenCalledWith(target);
  });

  it('hands the token to a return address in the app scheme, with a link if the app did not open', async () => {
    landingClock();
    const { assign, replace } = stubLocation();
    renderApp(`/sso-landing?transferToken=${TOKEN}&returnUrl=${encodeURIComponent('foyer://ext/done?x=1')}`);
    const target = `foyer://ext/done?x=1&transferToken=${TOKEN}`;
    expect(await screen.findByRole('link', { name: 'Open the app' })).toHaveAttribute('href', target);
    vi.advanceTimersByTime(1000);
    expect(assign).toHaveBeenCalledWith(target);
    expect(replace).not.toHaveBeenCalled();
  });

  it("hands a native client's token to its own app-scheme return address (a local build's), not the fixed one", async () => {
    landingClock();
    const { assign } = stubLocation();
    renderApp(`/sso-landing?transferToken=${TOKEN}&native=true&returnUrl=${encodeURIComponent('foyer-local://sso-done')}`);
    const target = `foyer-local://sso-done?transferToken=${TOKEN}`;
    expect(await screen.findByRole('link', { name: 'Open the app' })).toHaveAttribute('href', target);
    vi.advanceTimersByTime(1000);
    expect(assign).toHaveBeenCalledWith(target);
  });

  it.each([
    // One of the product's own sites: the browser signs in here, then goes there, without the token.
    ['https://app.foyer.test/ext/done?x=1', 'https://app.foyer.test/ext/done?x=1'],
    ['https://evil.example/steal', null],
  ])('returnUrl=%s: the token stays on this site', async (returnUrl, kept) => {
    landingClock();
    const { replace } = stubLocation();
    sessionStorage.removeItem('ssoFrom');
    renderApp(`/sso-landing?transferToken=${TOKEN}&returnUrl=${encodeURIComponent(returnUrl)}`);
    await screen.findByRole('heading', { level: 1, name: 'Signing in' });
    vi.advanceTimersByTime(1000);
    expect(replace).toHaveBeenCalledWith(`/ssol/${TOKEN}`);
    expect(sessionStorage.getItem('ssoFrom')).toBe(kept);
  });
});

describe('/ssol/:transferToken (spec §2, §7, §8)', () => {
  const bound = { [CHECK]: () => json(200, { email: 'ann@corp.example', boundToThisBrowser: true }) };

  it('checks the token, then exchanges it once at once when this browser started the sign-in, and goes to the kept `from`', async () => {
    const calls = stubFetch({ ...bound, [EXCHANGE]: () => json(200, { otter: 'session' }) });
    const { replace } = stubLocation();
    sessionStorage.setItem('ssoFrom', '/settings');
    renderApp(`/ssol/${TOKEN}`);
    expect(await screen.findByText('Signing you in…')).toBeInTheDocument();
    await waitFor(() => expect(replace).toHaveBeenCalledWith('/settings'));
    const sent = calls.filter((call) => call.method === 'POST');
    expect(sent.map((call) => call.url)).toEqual(['/api/account/exchangeSSOTransferToken/check', '/api/account/exchangeSSOTransferToken']);
    expect(sent[0]?.body).toEqual({ token: TOKEN });
    expect(sent[1]?.body).toMatchObject({ token: TOKEN });
    expect(sent[1]?.body).toHaveProperty('deviceId');
    expect(sessionStorage.getItem('ssoFrom')).toBeNull();
  });

  it('names the account of a token this browser did not ask for, and signs in only when the person continues (login CSRF)', async () => {
    const calls = stubFetch({
      [CHECK]: () => json(200, { email: 'mallory@example.com', boundToThisBrowser: false }),
      [EXCHANGE]: () => json(200, { otter: 'session' }),
    });
    const { replace } = stubLocation();
    renderApp(`/ssol/${TOKEN}`);
    expect(await screen.findByText(/Sign in to this browser as/)).toHaveTextContent('Sign in to this browser as mallory@example.com?');
    expect(screen.getByText('Continue only if you started this sign-in yourself.')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Cancel' })).toHaveAttribute('href', '/sign-in');
    expect(calls.filter((call) => call.url === '/api/account/exchangeSSOTransferToken')).toHaveLength(0);
    await userEvent.setup().click(screen.getByRole('button', { name: 'Continue' }));
    await waitFor(() => expect(replace).toHaveBeenCalledWith('/home'));
    expect(calls.filter((call) => call.url === '/api/account/exchangeSSOTransferToken')).toHaveLength(1);
  });

  it('goes to the default home without an allowed `from`', async () => {
    stubFetch({ ...bound, [EXCHANGE]: () => json(200, { otter: 'session' }) });
    const { replace } = stubLocation();
    sessionStorage.setItem('ssoFrom', 'https://evil.example/');
    renderApp(`/ssol/${TOKEN}`);
    await waitFor(() => expect(replace).toHaveBeenCalledWith('/home'));
  });

  it.each([
    ['ssoTransferFailed', 400],
    ['invalidRequest', 400],
  ])('a used or expired token (%s) shows the transfer error with ways back', async (code, status) => {
    stubFetch({ [CHECK]: () => json(status, { errorMessage: code }), [EXCHANGE]: () => json(status, { errorMessage: code }) });
    const { replace } = stubLocation();
    renderApp(`/ssol/${TOKEN}`);
    expect(await screen.findByRole('alert')).toHaveTextContent('There was an error signing in with SSO.');
    expect(screen.getByRole('link', { name: 'Sign in with SSO' })).toHaveAttribute('href', '/sso-sign-in');
    expect(screen.getByRole('link', { name: 'Back to Sign In' })).toHaveAttribute('href', '/sign-in');
    expect(replace).not.toHaveBeenCalled();
  });

  it('a token spent between the check and the exchange shows the transfer error', async () => {
    stubFetch({ ...bound, [EXCHANGE]: () => json(400, { errorMessage: 'ssoTransferFailed' }) });
    renderApp(`/ssol/${TOKEN}`);
    expect(await screen.findByRole('alert')).toHaveTextContent('There was an error signing in with SSO.');
  });
});
