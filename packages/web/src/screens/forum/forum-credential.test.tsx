import { fireEvent, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { TEST_CONFIG, json, renderApp, stubFetch, stubLocation, type RecordedCall } from '../../test/harness';

const SSO_CALL = 'POST /api/community/discourseSso';
const EXCHANGE_CALL = 'POST /api/exchange/otterToken';
const TERMS_CALL = 'POST /api/community/termsAgreed';
const FORUM = 'https://forum.foyer.test';
const CONFIG = { ...TEST_CONFIG, serverUrls: { ...TEST_CONFIG.serverUrls, community: FORUM }, communityTermsUrl: `${FORUM}/tos` };
const SSO = 'bm9uY2U9Y2I2ODI1MWVlZmI1MjExZTU4YzAwZmYxMzk1ZjBjMGI=\n';
const SIG = '2828aa29899722b35a2f191d34ef9b3ce695e0e6eeec47deb46d588d70c7cb56';
const FORUM_PATH = `/discourse-sso?${new URLSearchParams({ sso: SSO, sig: SIG }).toString()}`;
const ANSWER = `${FORUM}/session/sso_login?sso=abc&sig=def`;
const DEVICE = 'Dev1ce2Id3ab';
const DEVICE_TOKEN = 'd'.repeat(43);
const ONE_TIME = 'o'.repeat(43);

/** The Authorization header of each call to a path, in order (null: none was sent). */
function authorizations(calls: RecordedCall[], path: string): Array<string | null> {
  return calls.filter((call) => call.url === path).map((call) => call.headers.get('Authorization'));
}

describe('/discourse-sso credential lookup (spec §4, decision 0030)', () => {
  it('sends a stored device token as Bearer, with the stored device id', async () => {
    localStorage.setItem('deviceId', DEVICE);
    localStorage.setItem('deviceToken', DEVICE_TOKEN);
    localStorage.setItem('otterToken', ONE_TIME);
    const calls = stubFetch({ [SSO_CALL]: () => json(200, { termsAgreed: true, redirectUrl: ANSWER }) });
    const { replace } = stubLocation();
    renderApp(FORUM_PATH, { config: CONFIG });
    await waitFor(() => expect(replace).toHaveBeenCalledWith(ANSWER));
    const sent = calls.filter((call) => call.url.startsWith('/api/'));
    // No exchange: a device token is there already, and the one-time token is left alone.
    expect(sent.map((call) => call.url)).toEqual(['/api/community/discourseSso']);
    expect(sent[0]?.headers.get('Authorization')).toBe(`Bearer ${DEVICE_TOKEN}`);
    expect(sent[0]?.headers.get('X-DeviceId')).toBe(DEVICE);
    expect(localStorage.getItem('otterToken')).toBe(ONE_TIME);
  });

  // `otterToken` (decision 0030), or spec §3's `otter`, where an app written from the spec keeps it.
  it.each(['otterToken', 'otter'])(
    'exchanges a one-time token stored as %s for a device token, stores it, clears the one-time token and uses it',
    async (key) => {
      localStorage.setItem('deviceId', DEVICE);
      localStorage.setItem(key, ONE_TIME);
      const calls = stubFetch({
        [EXCHANGE_CALL]: () => json(200, { deviceToken: DEVICE_TOKEN }),
        [SSO_CALL]: () => json(200, { termsAgreed: true, redirectUrl: ANSWER }),
      });
      const { replace } = stubLocation();
      renderApp(FORUM_PATH, { config: CONFIG });
      await waitFor(() => expect(replace).toHaveBeenCalledWith(ANSWER));
      const sent = calls.filter((call) => call.url.startsWith('/api/'));
      expect(sent.map((call) => call.url)).toEqual(['/api/exchange/otterToken', '/api/community/discourseSso']);
      expect(sent[0]?.body).toEqual({ otterToken: ONE_TIME, deviceId: DEVICE });
      expect(sent[0]?.headers.get('Authorization')).toBeNull();
      expect(sent[1]?.headers.get('Authorization')).toBe(`Bearer ${DEVICE_TOKEN}`);
      expect(localStorage.getItem('deviceToken')).toBe(DEVICE_TOKEN);
      expect(localStorage.getItem(key)).toBeNull();
    },
  );

  it('clears a refused one-time token and signs in with the browser session', async () => {
    localStorage.setItem('deviceId', DEVICE);
    localStorage.setItem('otterToken', ONE_TIME);
    const calls = stubFetch({
      [EXCHANGE_CALL]: () => json(400, { errorMessage: 'invalidToken' }),
      [SSO_CALL]: () => json(200, { termsAgreed: true, redirectUrl: ANSWER }),
    });
    const { replace } = stubLocation();
    renderApp(FORUM_PATH, { config: CONFIG });
    await waitFor(() => expect(replace).toHaveBeenCalledWith(ANSWER));
    expect(authorizations(calls, '/api/community/discourseSso')).toEqual([null]);
    expect(localStorage.getItem('otterToken')).toBeNull();
    expect(localStorage.getItem('deviceToken')).toBeNull();
  });

  it('keeps the one-time token when the exchange never reached the service', async () => {
    localStorage.setItem('deviceId', DEVICE);
    localStorage.setItem('otterToken', ONE_TIME);
    const calls = stubFetch({
      [EXCHANGE_CALL]: () => Promise.reject(new TypeError('Failed to fetch')),
      [SSO_CALL]: () => json(401, { errorMessage: 'notSignedIn' }),
    });
    renderApp(FORUM_PATH, { config: CONFIG });
    expect(await screen.findByRole('heading', { level: 1, name: 'Join the Foyer Community' })).toBeInTheDocument();
    expect(authorizations(calls, '/api/community/discourseSso')).toEqual([null]);
    expect(localStorage.getItem('otterToken')).toBe(ONE_TIME);
  });

  it('signs in as before without a stored device id, whatever tokens are stored', async () => {
    localStorage.setItem('deviceToken', DEVICE_TOKEN);
    localStorage.setItem('otterToken', ONE_TIME);
    const calls = stubFetch({ [SSO_CALL]: () => json(200, { termsAgreed: true, redirectUrl: ANSWER }) });
    const { replace } = stubLocation();
    renderApp(FORUM_PATH, { config: CONFIG });
    await waitFor(() => expect(replace).toHaveBeenCalledWith(ANSWER));
    expect(calls.filter((call) => call.url.startsWith('/api/')).map((call) => call.url)).toEqual(['/api/community/discourseSso']);
    expect(authorizations(calls, '/api/community/discourseSso')).toEqual([null]);
    expect(localStorage.getItem('otterToken')).toBe(ONE_TIME);
  });

  it('forgets a device token the service no longer takes and tries the browser session once', async () => {
    localStorage.setItem('deviceId', DEVICE);
    localStorage.setItem('deviceToken', DEVICE_TOKEN);
    const answers = [json(401, { errorMessage: 'notSignedIn' }), json(200, { termsAgreed: true, redirectUrl: ANSWER })];
    const calls = stubFetch({ [SSO_CALL]: () => answers.shift() ?? json(500, {}) });
    const { replace } = stubLocation();
    renderApp(FORUM_PATH, { config: CONFIG });
    await waitFor(() => expect(replace).toHaveBeenCalledWith(ANSWER));
    expect(authorizations(calls, '/api/community/discourseSso')).toEqual([`Bearer ${DEVICE_TOKEN}`, null]);
    expect(localStorage.getItem('deviceToken')).toBeNull();
  });

  it('records the terms with the same device token', async () => {
    localStorage.setItem('deviceId', DEVICE);
    localStorage.setItem('deviceToken', DEVICE_TOKEN);
    const calls = stubFetch({ [TERMS_CALL]: () => json(200, {}) });
    const { replace } = stubLocation();
    renderApp(`/discourse-terms?${new URLSearchParams({ from: FORUM_PATH }).toString()}`, { config: CONFIG });
    fireEvent.load(await screen.findByTitle('Foyer Community terms and conditions'));
    await userEvent.click(screen.getByRole('checkbox'));
    await userEvent.click(screen.getByRole('button', { name: 'Accept' }));
    await waitFor(() => expect(replace).toHaveBeenCalledWith(FORUM_PATH));
    expect(authorizations(calls, '/api/community/termsAgreed')).toEqual([`Bearer ${DEVICE_TOKEN}`]);
  });
});
