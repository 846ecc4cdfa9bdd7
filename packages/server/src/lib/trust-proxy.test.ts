import { normalizeEmail } from '@foyer/contract';
import { afterEach, describe, expect, it } from 'vitest';
import { postSignUp, signUpBody } from '../../test/account-entry.js';
import { createTestApp, createTestUser, dbUnavailable, xsrf, signInUrl, type TestApp } from '../../test/helpers.js';
import { listAuditEvents } from '../features/audit/audit.repo.js';
import { SIGNUP_PER_IP } from '../features/signup/signup.limits.js';
import { sha256Hex } from './crypto.js';

/** The address the service records for a failed sign-in sent with these network facts. */
async function recordedAddress(t: TestApp, network: { forwardedFor?: string; remoteAddress?: string }): Promise<string | null> {
  const account = await createTestUser(t);
  const pair = xsrf();
  const response = await t.app.inject({
    method: 'POST',
    url: signInUrl(),
    cookies: pair.cookies,
    headers: { ...pair.headers, ...(network.forwardedFor === undefined ? {} : { 'x-forwarded-for': network.forwardedFor }) },
    payload: { email: account.email, hashPassword: sha256Hex('not the password'), deviceId: 'abcdefghijkl' },
    ...(network.remoteAddress === undefined ? {} : { remoteAddress: network.remoteAddress }),
  });
  expect(response.statusCode).toBe(401);
  const events = await listAuditEvents(t.db, { emailKey: normalizeEmail(account.email), type: 'signin.failure' });
  expect(events).toHaveLength(1);
  return events[0]?.ip ?? null;
}

describe.skipIf(dbUnavailable)('TRUST_PROXY: which X-Forwarded-For entry is the client', () => {
  let t: TestApp | undefined;
  const start = async (trustProxy?: string): Promise<TestApp> => {
    t = await createTestApp({ env: trustProxy === undefined ? {} : { TRUST_PROXY: trustProxy } });
    return t;
  };
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it('unset: the header is ignored, the peer is the client', async () => {
    const app = await start();
    expect(await recordedAddress(app, { forwardedFor: '1.2.3.4', remoteAddress: '198.51.100.7' })).toBe('198.51.100.7');
  });

  it('one hop: the entry our proxy appended is the client, not the left-most one the client wrote', async () => {
    const app = await start('1');
    expect(await recordedAddress(app, { forwardedFor: '1.2.3.4, 5.6.7.8', remoteAddress: '10.0.0.2' })).toBe('5.6.7.8');
  });

  it('one hop: rotating the left-most entry does not escape the per-address limit', async () => {
    const app = await start('1');
    const statuses: number[] = [];
    for (let index = 0; index <= SIGNUP_PER_IP.limit; index++) {
      const response = await postSignUp(app, signUpBody(), { headers: { 'x-forwarded-for': `203.0.113.${index}, 5.6.7.8` } });
      statuses.push(response.statusCode);
    }
    expect(statuses.slice(0, SIGNUP_PER_IP.limit).every((status) => status === 200)).toBe(true);
    expect(statuses.at(-1)).toBe(429);
    // Another client behind the same proxy keeps its own allowance.
    expect((await postSignUp(app, signUpBody(), { headers: { 'x-forwarded-for': '1.2.3.4, 5.6.7.9' } })).statusCode).toBe(200);
  });

  it('a proxy list: only hops from those proxies are believed', async () => {
    const app = await start('10.0.0.0/8, 192.0.2.1');
    // Through our proxy: the entry it appended.
    expect(await recordedAddress(app, { forwardedFor: '1.2.3.4, 5.6.7.8', remoteAddress: '10.1.2.3' })).toBe('5.6.7.8');
    // Through two of ours: past both, to the first address no proxy of ours wrote.
    expect(await recordedAddress(app, { forwardedFor: '1.2.3.4, 192.0.2.1', remoteAddress: '10.1.2.3' })).toBe('1.2.3.4');
    // Straight from the internet: the header is the client's own invention.
    expect(await recordedAddress(app, { forwardedFor: '1.2.3.4', remoteAddress: '198.51.100.7' })).toBe('198.51.100.7');
  });

  it("one hop: an entry with a port is its address; one that is no address is the proxy's own request", async () => {
    const app = await start('1');
    expect(await recordedAddress(app, { forwardedFor: '1.2.3.4, 9.9.9.9:1234', remoteAddress: '10.0.0.2' })).toBe('9.9.9.9');
    expect(await recordedAddress(app, { forwardedFor: '[2001:db8::7]:443', remoteAddress: '10.0.0.2' })).toBe('2001:db8::7');
    expect(await recordedAddress(app, { forwardedFor: 'not-an-ip', remoteAddress: '10.0.0.2' })).toBe('10.0.0.2');
    // Changing the port or the text changes nothing for the per-address limit.
    const statuses: number[] = [];
    for (let index = 0; index <= SIGNUP_PER_IP.limit; index++) {
      const response = await postSignUp(app, signUpBody(), { headers: { 'x-forwarded-for': `9.9.8.8:${2000 + index}` } });
      statuses.push(response.statusCode);
    }
    expect(statuses.at(-1)).toBe(429);
  });
});
