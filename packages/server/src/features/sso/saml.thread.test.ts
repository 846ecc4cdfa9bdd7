import { afterEach, describe, expect, it } from 'vitest';
import { IDP_ENTITY_ID, IDP_KEYS, IDP_SSO_URL, certBody, encode, readAuthnRequest, signedResponse } from '../../../test/saml-idp.js';
import type { SamlConnectionSettings } from './saml.response.js';
import { SamlThreads, type SamlThreadOptions } from './saml.thread.js';
import { SsoFailure } from './sso.failure.js';

const SETTINGS: SamlConnectionSettings = {
  connectionId: 'c1',
  idpEntityId: IDP_ENTITY_ID,
  idpSsoUrl: IDP_SSO_URL,
  certificates: [certBody(IDP_KEYS.cert)],
  spEntityId: 'https://foyer.test/sso/saml/c1/metadata',
  acsUrl: 'https://foyer.test/sso/saml/c1/acs',
};

function honestResponse(nameId: string): string {
  const now = Date.now();
  return encode(
    signedResponse({ acsUrl: SETTINGS.acsUrl, audience: SETTINGS.spEntityId, nameId, email: `${nameId}@corp.example`, inResponseTo: '_r1', now }),
  );
}

async function refusal(promise: Promise<unknown>): Promise<SsoFailure> {
  const error: unknown = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(SsoFailure);
  return error as SsoFailure;
}

async function until(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** saml.thread.ts: the SAML checks on worker threads, as the assertion consumer uses them. */
describe('SAML threads', () => {
  const pools: SamlThreads[] = [];
  const pool = (options: SamlThreadOptions = {}) => {
    const threads = new SamlThreads(options);
    pools.push(threads);
    return threads;
  };

  afterEach(async () => {
    await Promise.all(pools.splice(0).map((threads) => threads.close()));
  });

  it('answers the signed assertion of an honest response, and refuses a forged one with 1002 and its reason', async () => {
    const threads = pool();
    const assertion = await threads.validateResponse(SETTINGS, honestResponse('ann'), Date.now());
    expect(assertion).toMatchObject({ nameId: 'ann', email: 'ann@corp.example', inResponseTo: '_r1' });

    const forged = Buffer.from(Buffer.from(honestResponse('bob'), 'base64').toString('utf8').replace('bob@corp.example', 'eve@corp.example')).toString(
      'base64',
    );
    const refused = await refusal(threads.validateResponse(SETTINGS, forged, Date.now()));
    expect(refused.code).toBe('1002');
    expect(refused.reason).toMatch(/signature/i);
    expect((await refusal(threads.validateResponse(SETTINGS, 'not base64 at all!', Date.now()))).code).toBe('1002');
  });

  it('makes the AuthnRequest address on a thread too', async () => {
    const url = await pool().authnRequestUrl(SETTINGS, { requestId: '_abc123', relayState: '/welcome' });
    expect(url.startsWith(`${IDP_SSO_URL}?`)).toBe(true);
    expect(readAuthnRequest(url)).toMatchObject({ id: '_abc123', relayState: '/welcome' });
  });

  it('runs at most its number of threads, and every waiting job gets its answer', async () => {
    const threads = pool({ threads: 2 });
    const names = ['a1', 'a2', 'a3', 'a4', 'a5', 'a6'];
    const answers = names.map((name) => threads.validateResponse(SETTINGS, honestResponse(name), Date.now()));
    expect(threads.running).toBe(2);
    expect((await Promise.all(answers)).map((assertion) => assertion.nameId)).toEqual(names);
    expect(threads.running).toBe(2);
  });

  it('ends a thread that has had nothing to do for its idle time, and starts one again when needed', async () => {
    const threads = pool({ idleMs: 100 });
    await threads.validateResponse(SETTINGS, honestResponse('ann'), Date.now());
    expect(threads.running).toBe(1);
    await until(() => threads.running === 0);
    expect((await threads.validateResponse(SETTINGS, honestResponse('ann'), Date.now())).nameId).toBe('ann');
  });

  it('refuses a check that outlives its deadline and ends only that thread', async () => {
    // Starting a thread alone takes longer than 1 ms, so the first job cannot be answered in time.
    const threads = pool({ deadlineMs: 1 });
    const refused = await refusal(threads.validateResponse(SETTINGS, honestResponse('ann'), Date.now()));
    expect(refused.code).toBe('1002');
    expect(refused.reason).toBe('unreadable: the check took longer than 1 ms');
    expect(threads.running).toBe(0);
  });

  it('refuses a response at once when its queue is full, and still answers the ones it took', async () => {
    // The thread holds two (the one it checks and the next), two more wait: the fifth is refused.
    const threads = pool({ threads: 1, maxWaiting: 2 });
    const taken = ['a1', 'a2', 'a3', 'a4'].map((name) => threads.validateResponse(SETTINGS, honestResponse(name), Date.now()));
    const refused = await refusal(threads.validateResponse(SETTINGS, honestResponse('a5'), Date.now()));
    expect(refused.code).toBe('1002');
    expect(refused.reason).toBe('busy: 2 jobs already waiting for a SAML thread');
    expect((await Promise.all(taken)).map((assertion) => assertion.nameId)).toEqual(['a1', 'a2', 'a3', 'a4']);
  });

  it('answers the waiting jobs when the service stops, and takes no more', async () => {
    const threads = pool({ threads: 1 });
    const running = refusal(threads.validateResponse(SETTINGS, honestResponse('ann'), Date.now()));
    const waiting = refusal(threads.validateResponse(SETTINGS, honestResponse('bob'), Date.now()));
    await threads.close();
    expect((await running).reason).toBe('unreadable: the service is stopping');
    expect((await waiting).reason).toBe('unreadable: the service is stopping');
    expect(threads.running).toBe(0);
    await expect(threads.validateResponse(SETTINGS, honestResponse('cy'), Date.now())).rejects.toThrow('closed');
  });
});
