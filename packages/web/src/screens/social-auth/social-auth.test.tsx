import { screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { TEST_CONFIG, json, renderApp, stubFetch, stubLocation } from '../../test/harness';

const START = 'POST /api/account/socialAuth';
const EXCHANGE = 'POST /api/account/socialAuth/exchange';
const CONSENT = 'https://accounts.google.test/o/oauth2/auth?client_id=c&state=s';
const GOOGLE = { config: { ...TEST_CONFIG, googleEnabled: true } };
const NONCE = 'Nonce0123456789abcdefghijklmnopq';

afterEach(() => sessionStorage.clear());

describe('/social-auth (spec §2)', () => {
  it('keeps the recognised query and a fresh state, then sends the browser to the consent page', async () => {
    const calls = stubFetch({ [START]: () => json(200, { url: CONSENT }) });
    const { assign } = stubLocation();
    renderApp('/social-auth?from=%2Fsettings&plan=organization&utm_source=news&signupSource=auth%2Fsign-up%2Fgoogle&native=true&evil=1', GOOGLE);
    expect(await screen.findByRole('heading', { level: 1, name: 'Continue with Google' })).toBeInTheDocument();
    await waitFor(() => expect(assign).toHaveBeenCalledWith(CONSENT));
    const state = sessionStorage.getItem('socialAuthNonce');
    expect(state).toMatch(/^[A-Za-z0-9]{32}$/);
    expect(calls.at(-1)?.body).toEqual({ state });
    const kept = new URLSearchParams(sessionStorage.getItem('socialAuthParams') ?? '');
    expect(Object.fromEntries(kept)).toEqual({
      from: '/settings',
      plan: 'organization',
      utm_source: 'news',
      signupSource: 'auth/sign-up/google',
      native: 'true',
    });
  });

  it('says Google sign-in is unavailable, with a way back, when the service cannot reach Google', async () => {
    stubFetch({ [START]: () => json(503, { errorMessage: 'unavailable' }) });
    const { assign } = stubLocation();
    renderApp('/social-auth?from=%2Fsettings', GOOGLE);
    expect(await screen.findByText('Google sign-in is not available right now. Please try again later.')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Try Again' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Back to Sign In' })).toHaveAttribute('href', '/sign-in?from=%2Fsettings');
    expect(assign).not.toHaveBeenCalled();
  });

  it('asks nothing when Google sign-in is not configured', async () => {
    const calls = stubFetch({});
    renderApp('/social-auth');
    expect(await screen.findByText('Google sign-in is not available right now. Please try again later.')).toBeInTheDocument();
    expect(calls.filter((call) => call.method === 'POST')).toEqual([]);
  });
});

function returnFromGoogle(kept: string, query: string) {
  sessionStorage.setItem('socialAuthNonce', NONCE);
  sessionStorage.setItem('socialAuthParams', kept);
  renderApp(`/social-auth-callback?${query}`, GOOGLE);
}

describe('/social-auth-callback (spec §4)', () => {
  it('exchanges the code with the spec §7 payload and goes to the allowed `from`', async () => {
    const calls = stubFetch({ [EXCHANGE]: () => json(200, { wasSignUp: true, otter: 'o', wasClient: false }) });
    const { assign } = stubLocation();
    returnFromGoogle('from=%2Fsettings&plan=organization&utm_source=news&gclid=g1&signupSource=auth%2Fsign-up%2Fgoogle', `code=the-code&state=${NONCE}`);
    await waitFor(() => expect(assign).toHaveBeenCalledWith('/settings'));
    const [exchange] = calls.filter((call) => call.method === 'POST');
    expect(exchange?.body).toMatchObject({
      authorizationCode: 'the-code',
      state: NONCE,
      initialIntent: 'organization',
      utmSource: 'news',
      gclid: 'g1',
      signupSource: 'auth/sign-up/google',
    });
    expect(exchange?.body).toHaveProperty('deviceId');
    expect(exchange?.body).not.toHaveProperty('useTransferToken');
    // A nonce serves one return only.
    expect(sessionStorage.getItem('socialAuthNonce')).toBeNull();
  });

  it('goes to the default home when `from` is not allowed', async () => {
    stubFetch({ [EXCHANGE]: () => json(200, { wasSignUp: false, otter: 'o', wasClient: false }) });
    const { assign } = stubLocation();
    returnFromGoogle('from=https%3A%2F%2Fevil.example%2F', `code=c&state=${NONCE}`);
    await waitFor(() => expect(assign).toHaveBeenCalledWith('/home'));
  });

  it('refuses a state that is not the stored nonce, with a way back, and exchanges nothing', async () => {
    const calls = stubFetch({});
    returnFromGoogle('from=%2Fsettings', 'code=c&state=someone-elses-state');
    expect(await screen.findByText('This sign-in attempt could not be verified. Please try again.')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Back to Sign In' })).toHaveAttribute('href', '/sign-in?from=%2Fsettings');
    expect(calls.filter((call) => call.method === 'POST')).toEqual([]);
  });

  it('says so when the person cancelled at the consent page', async () => {
    const calls = stubFetch({});
    returnFromGoogle('', `error=access_denied&state=${NONCE}`);
    expect(await screen.findByText('You cancelled signing in with Google. Nothing was changed.')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Back to Sign In' })).toBeInTheDocument();
    expect(calls.filter((call) => call.method === 'POST')).toEqual([]);
  });

  it('shows Sign-in Successful and a link into the app for a native client asking for a transfer token', async () => {
    const calls = stubFetch({ [EXCHANGE]: () => json(200, { wasSignUp: false, otter: '', transferToken: 'tok-123', wasClient: true }) });
    returnFromGoogle('native=true&useTransferToken=true&from=foyer%3A%2F%2Fsignin', `code=c&state=${NONCE}`);
    expect(await screen.findByRole('heading', { level: 1, name: 'Sign-in Successful' })).toBeInTheDocument();
    expect(screen.getByText('You can now return to the app.')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Open the app' })).toHaveAttribute('href', 'foyer://signin?transferToken=tok-123');
    expect(calls.find((call) => call.method === 'POST')?.body).toMatchObject({ useTransferToken: true });
  });

  it("keeps a native client's kind on the SSO link of ssoRequired, so the company sign-in hands its token to the app", async () => {
    stubFetch({ [EXCHANGE]: () => json(409, { errorMessage: 'ssoRequired', email: 'ann@corp.test' }) });
    returnFromGoogle('native=true&useTransferToken=true&clientAuthenticationPeriodId=p-1&from=foyer%3A%2F%2Fsignin', `code=c&state=${NONCE}`);
    expect(await screen.findByRole('link', { name: 'Sign in with SSO' })).toHaveAttribute(
      'href',
      '/sso-sign-in?from=foyer%3A%2F%2Fsignin&email=ann%40corp.test&native=true&useTransferToken=true&clientAuthenticationPeriodId=p-1',
    );
  });

  it('puts the transfer token only into an app address, before its fragment', async () => {
    stubFetch({ [EXCHANGE]: () => json(200, { wasSignUp: false, otter: '', transferToken: 'tok-123', wasClient: true }) });
    returnFromGoogle('native=true&useTransferToken=true&from=foyer%3A%2F%2Fcb%3Fx%3D1%23frag', `code=c&state=${NONCE}`);
    expect(await screen.findByRole('link', { name: 'Open the app' })).toHaveAttribute('href', 'foyer://cb?x=1&transferToken=tok-123#frag');
  });

  it('gives a web address on the allow-list no transfer token: it is a credential for the app', async () => {
    stubFetch({ [EXCHANGE]: () => json(200, { wasSignUp: false, otter: '', transferToken: 'tok-123', wasClient: true }) });
    returnFromGoogle('useTransferToken=true&from=%2Fhome', `code=c&state=${NONCE}`);
    expect(await screen.findByRole('heading', { level: 1, name: 'Sign-in Successful' })).toBeInTheDocument();
    expect(screen.queryByRole('link', { name: 'Open the app' })).toBeNull();
    expect(document.body.innerHTML).not.toContain('tok-123');
  });

  it.each([
    ['ssoRequired', 409, 'This email belongs to an organization with Single Sign-On (SSO) enabled, and cannot be used to sign up.'],
    ['deactivatedAccount', 403, 'Your account is deactivated. Please contact your organization administrator.'],
    [
      'emailNotVerified',
      403,
      'Google did not confirm that this email address is yours, so it cannot be used to sign in to an existing account. Please sign in with your password.',
    ],
    ['socialAuthFailed', 401, "We couldn't sign you in with Google. Please try again."],
  ])('explains %s', async (code, status, text) => {
    stubFetch({ [EXCHANGE]: () => json(status, { errorMessage: code }) });
    returnFromGoogle('from=%2Fsettings', `code=c&state=${NONCE}`);
    expect(await screen.findByText(text)).toBeInTheDocument();
    const sso = screen.queryByRole('link', { name: 'Sign in with SSO' });
    if (code === 'ssoRequired') expect(sso).toHaveAttribute('href', '/sso-sign-in?from=%2Fsettings');
    else expect(sso).toBeNull();
  });

  it('fills in the address Google vouched for on the SSO link of ssoRequired (decision 0022)', async () => {
    stubFetch({ [EXCHANGE]: () => json(409, { errorMessage: 'ssoRequired', email: 'Ann@Corp.example' }) });
    returnFromGoogle('from=%2Fsettings', `code=c&state=${NONCE}`);
    const link = await screen.findByRole('link', { name: 'Sign in with SSO' });
    expect(link).toHaveAttribute('href', '/sso-sign-in?from=%2Fsettings&email=Ann%40Corp.example');
  });

  it('leaves a detail of another refusal, or a malformed one, off the page', async () => {
    stubFetch({ [EXCHANGE]: () => json(409, { errorMessage: 'ssoRequired', email: 42 }) });
    returnFromGoogle('', `code=c&state=${NONCE}`);
    expect(await screen.findByRole('link', { name: 'Sign in with SSO' })).toHaveAttribute('href', '/sso-sign-in');
  });
});
