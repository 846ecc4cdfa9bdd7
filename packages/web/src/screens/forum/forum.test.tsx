import { fireEvent, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import { resetAnalyticsForTests } from '../../lib/analytics';
import { TEST_CONFIG, json, renderApp, stubFetch, stubLocation, type RecordedCall } from '../../test/harness';

const SSO_CALL = 'POST /api/community/discourseSso';
const TERMS_CALL = 'POST /api/community/termsAgreed';
const FORUM = 'https://forum.foyer.test';
const CONFIG = {
  ...TEST_CONFIG,
  serverUrls: { ...TEST_CONFIG.serverUrls, community: FORUM },
  communityTermsUrl: `${FORUM}/tos`,
};
// Discourse's base64 ends in a line feed, which is signed (decision 0021).
const SSO = 'bm9uY2U9Y2I2ODI1MWVlZmI1MjExZTU4YzAwZmYxMzk1ZjBjMGI=\n';
const SIG = '2828aa29899722b35a2f191d34ef9b3ce695e0e6eeec47deb46d588d70c7cb56';
const FORUM_PATH = `/discourse-sso?${new URLSearchParams({ sso: SSO, sig: SIG }).toString()}`;
const ANSWER = `${FORUM}/session/sso_login?sso=abc&sig=def`;
const EVENTS = 'https://events.foyer.test/v1/batch';
const WITH_ANALYTICS = { ...CONFIG, analyticsUrl: EVENTS };

beforeEach(() => resetAnalyticsForTests());

/** The events the page sent to the analytics endpoint (lib/analytics.test.ts has the real transport). */
function eventsSent(calls: RecordedCall[]): unknown[] {
  return calls
    .filter((call) => call.url === EVENTS)
    .flatMap((call) => (call.body as { batch: Array<{ event: string; properties: unknown }> }).batch)
    .map(({ event, properties }) => ({ event, properties }));
}
const FORUM_EVENT = { category: 'Discourse', object: 'Community SSO' };

describe('/discourse-sso (spec §2, §4)', () => {
  it('signs a person with a session and agreed terms straight into the forum', async () => {
    const calls = stubFetch({
      [SSO_CALL]: () => json(200, { termsAgreed: true, redirectUrl: ANSWER }),
      [`POST ${EVENTS}`]: () => json(200, {}),
    });
    const { replace } = stubLocation();
    localStorage.setItem('doImmediateRedirect', 'true');
    renderApp(FORUM_PATH, { config: WITH_ANALYTICS });
    expect(await screen.findByRole('heading', { level: 1, name: 'Signing into Community' })).toBeInTheDocument();
    expect(screen.getByRole('status')).toHaveTextContent('Signing into Community');
    await waitFor(() => expect(replace).toHaveBeenCalledWith(ANSWER));
    expect(eventsSent(calls)).toEqual([
      { event: 'Loaded', properties: FORUM_EVENT },
      { event: 'Logged In', properties: FORUM_EVENT },
    ]);
    const sent = calls.filter((call) => call.url === '/api/community/discourseSso');
    // One request: the service answers a nonce once, whatever React's effects do.
    expect(sent).toHaveLength(1);
    expect(sent[0]?.body).toEqual({ ssoPayload: SSO, signature: SIG });
    expect(sent[0]?.headers.get('X-DeviceId')).toMatch(/^[A-Za-z0-9]{12}$/);
    expect(sent[0]?.credentials).toBe('same-origin');
    expect(localStorage.getItem('doImmediateRedirect')).toBeNull();
  });

  it('sends a person who has not agreed to the terms there, with the way back as `from`', async () => {
    stubFetch({ [SSO_CALL]: () => json(200, { termsAgreed: false, redirectUrl: '' }) });
    stubLocation();
    const { location } = renderApp(FORUM_PATH, { config: CONFIG });
    expect(await screen.findByRole('heading', { level: 1, name: 'Community terms' })).toBeInTheDocument();
    const from = new URLSearchParams(location.current.split('?')[1]).get('from') ?? '';
    expect(location.current.startsWith('/discourse-terms?from=')).toBe(true);
    expect(new URLSearchParams(from.split('?')[1]).get('sso')).toBe(SSO);
    expect(localStorage.getItem('discoursePending')).toBe('true');
  });

  it('offers the three choices after a silent 401, each leading back here, and drops the pending flag', async () => {
    stubFetch({ [SSO_CALL]: () => json(401, { errorMessage: 'notSignedIn' }) });
    localStorage.setItem('discoursePending', 'true');
    renderApp(FORUM_PATH, { config: CONFIG });
    expect(await screen.findByRole('heading', { level: 1, name: 'Join the Foyer Community' })).toBeInTheDocument();
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
    const back = new URLSearchParams({ from: FORUM_PATH, signupSource: 'auth/sign-up/community' }).toString();
    expect(screen.getByRole('link', { name: 'Create Account' })).toHaveAttribute('href', `/sign-up?${back}`);
    expect(screen.getByRole('link', { name: 'Sign In with Foyer' })).toHaveAttribute('href', `/sign-in?${back}`);
    expect(screen.getByRole('link', { name: 'Continue with Google' })).toHaveAttribute('href', `/social-auth?${back}`);
    for (const name of ['Privacy Policy (opens in a new tab)', 'Terms of Service (opens in a new tab)']) {
      const link = screen.getByRole('link', { name });
      expect(link).toHaveAttribute('target', '_blank');
      expect(link).toHaveAttribute('rel', 'noopener noreferrer');
    }
    expect(screen.getByText(/By clicking Create Account you agree to receive email notifications/)).toBeInTheDocument();
    // Sign-in would otherwise bounce the person home instead of signing them in (spec §4).
    expect(localStorage.getItem('discoursePending')).toBeNull();
    expect(localStorage.getItem('doImmediateRedirect')).toBe('true');
  });

  it('shows the choices without a call when the forum sent no request', async () => {
    const calls = stubFetch({});
    renderApp('/discourse-sso', { config: CONFIG });
    expect(await screen.findByRole('heading', { level: 1, name: 'Join the Foyer Community' })).toBeInTheDocument();
    expect(calls.filter((call) => call.method === 'POST')).toEqual([]);
  });

  it('sends Create Account to the marketing site’s get-started page for the community in production', async () => {
    stubFetch({ [SSO_CALL]: () => json(401, { errorMessage: 'notSignedIn' }) });
    renderApp(FORUM_PATH, { config: { ...CONFIG, env: 'prod' } });
    const link = await screen.findByRole('link', { name: 'Create Account' });
    const url = new URL(link.getAttribute('href') ?? '');
    expect(`${url.origin}${url.pathname}`).toBe('https://www.foyer.test/get-started-with-community');
    expect(url.searchParams.get('from')).toBe(FORUM_PATH);
    expect(url.searchParams.get('signupSource')).toBe('auth/sign-up/community');
  });

  it.each([
    ['a refused request', () => json(400, { errorMessage: 'invalidSsoPayload' })],
    ['a server failure', () => json(500, { errorMessage: 'unexpectedError' })],
    ['an address off the product’s sites', () => json(200, { termsAgreed: true, redirectUrl: 'https://evil.example/x' })],
  ])('says "An error occurred" on %s, and offers the three choices (spec §2)', async (_name, answer) => {
    stubFetch({ [SSO_CALL]: answer });
    const { replace } = stubLocation();
    renderApp(FORUM_PATH, { config: CONFIG });
    expect(await screen.findByRole('alert')).toHaveTextContent('An error occurred. Please try again.');
    expect(replace).not.toHaveBeenCalled();
    expect(screen.getByRole('heading', { level: 1 })).not.toHaveTextContent('Signing into Community');
    for (const name of ['Create Account', 'Sign In with Foyer', 'Continue with Google']) expect(screen.getByRole('link', { name })).toBeInTheDocument();
  });
});

describe('/discourse-terms (spec §2, §4)', () => {
  const TERMS_PATH = `/discourse-terms?${new URLSearchParams({ from: FORUM_PATH }).toString()}`;

  it('enables Accept only once the terms have loaded and the box is ticked, then records it and goes to `from`', async () => {
    const calls = stubFetch({ [TERMS_CALL]: () => json(200, {}), [`POST ${EVENTS}`]: () => json(200, {}) });
    const { replace } = stubLocation();
    localStorage.setItem('discoursePending', 'true');
    renderApp(TERMS_PATH, { config: WITH_ANALYTICS });
    const frame = await screen.findByTitle('Foyer Community terms and conditions');
    expect(frame).toHaveAttribute('src', `${FORUM}/tos`);
    expect(frame).toHaveAttribute('height', '400');
    const accept = screen.getByRole('button', { name: 'Accept' });
    const box = screen.getByRole('checkbox', { name: 'I have read and accept the Foyer Community terms and conditions' });
    expect(accept).toBeDisabled();
    await userEvent.click(box);
    expect(accept).toBeDisabled();
    fireEvent.load(frame);
    expect(accept).toBeEnabled();
    await userEvent.click(accept);
    await waitFor(() => expect(replace).toHaveBeenCalledWith(FORUM_PATH));
    expect(calls.filter((call) => call.url.startsWith('/api/')).map((call) => call.url)).toEqual(['/api/community/termsAgreed']);
    expect(eventsSent(calls)).toEqual([
      { event: 'Loaded', properties: FORUM_EVENT },
      { event: 'Terms Agreed', properties: FORUM_EVENT },
    ]);
    // Still pending: the forum request this goes back to ends the flow.
    expect(localStorage.getItem('discoursePending')).toBe('true');
  });

  it('keeps Accept disabled while only the frame has loaded', async () => {
    renderApp(TERMS_PATH, { config: CONFIG });
    fireEvent.load(await screen.findByTitle('Foyer Community terms and conditions'));
    expect(screen.getByRole('button', { name: 'Accept' })).toBeDisabled();
  });

  it('Cancel ends the forum sign-in and goes to the community site', async () => {
    const calls = stubFetch({ [`POST ${EVENTS}`]: () => json(200, {}) });
    const { assign } = stubLocation();
    localStorage.setItem('discoursePending', 'true');
    localStorage.setItem('doImmediateRedirect', 'true');
    renderApp(TERMS_PATH, { config: WITH_ANALYTICS });
    await userEvent.click(await screen.findByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(assign).toHaveBeenCalledWith(FORUM));
    expect(localStorage.getItem('discoursePending')).toBeNull();
    expect(localStorage.getItem('doImmediateRedirect')).toBeNull();
    expect(calls.filter((call) => call.url.startsWith('/api/'))).toEqual([]);
    expect(eventsSent(calls)).toContainEqual({ event: 'Terms Cancelled', properties: FORUM_EVENT });
  });

  it('says "An error occurred" when the agreement cannot be recorded', async () => {
    stubFetch({ [TERMS_CALL]: () => json(401, { errorMessage: 'notSignedIn' }) });
    const { replace } = stubLocation();
    localStorage.setItem('discoursePending', 'true');
    renderApp(TERMS_PATH, { config: CONFIG });
    fireEvent.load(await screen.findByTitle('Foyer Community terms and conditions'));
    await userEvent.click(screen.getByRole('checkbox'));
    await userEvent.click(screen.getByRole('button', { name: 'Accept' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('An error occurred. Please try again.');
    expect(replace).not.toHaveBeenCalled();
    // Signed out: the next sign-in must not bounce home.
    expect(localStorage.getItem('discoursePending')).toBeNull();
  });

  it('shows the texts in the visitor’s language', async () => {
    const de = (await import('@foyer/contract/lang/de.json')).default;
    renderApp(TERMS_PATH, { config: CONFIG, languages: ['de'], inline: { locale: 'de', messages: de } });
    expect(await screen.findByRole('heading', { level: 1, name: 'Community-Bedingungen' })).toBeInTheDocument();
    expect(screen.getByRole('checkbox', { name: 'Ich habe die Nutzungsbedingungen der Foyer Community gelesen und akzeptiere sie' })).toBeInTheDocument();
  });
});
