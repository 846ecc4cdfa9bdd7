import { API_BASE, CALLS, DEVICE_ID_HEADER } from '@foyer/contract';
import { serializerCompiler } from 'fastify-type-provider-zod';
import { describe, expect, it } from 'vitest';
import {
  DAY,
  HOUR,
  MINUTE,
  createTestUser,
  dbUnavailable,
  getSession,
  newDeviceId,
  refuseInserts,
  sessionCookieName,
  setCookie,
  signIn,
  useTestApp,
  xsrf,
} from '../../../test/helpers.js';
import { listAuditEvents } from '../audit/audit.repo.js';
import { CLI_META } from '../audit/audit.service.js';
import { getFailureCount } from '../lockout/lockout.repo.js';
import { deactivateUser } from '../users/users.service.js';
import { sha256Hex } from '../../lib/crypto.js';
import { deleteExpiredSessions } from './sessions.repo.js';

const SESSION_URL = API_BASE + CALLS.session.path;
const SIGNOUT_URL = API_BASE + CALLS.signout.path;

describe.skipIf(dbUnavailable)('sessions', () => {
  const t = useTestApp();

  const signOut = (cookies: Record<string, string>, headers: Record<string, string> = {}) => {
    const pair = xsrf();
    return t.app.inject({
      method: 'POST',
      url: SIGNOUT_URL,
      cookies: { ...pair.cookies, ...cookies },
      headers: { ...pair.headers, ...headers },
      payload: {},
    });
  };

  it('answers the signed-in account for the cookie and the same device id', async () => {
    const account = await createTestUser(t);
    const { otter, deviceId } = await signIn(t.app, account);
    const response = await getSession(t, otter, deviceId);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      user: { id: account.user.id, email: account.email, firstName: 'Ada', lastName: 'Lovelace', emailVerified: true },
      expiresAt: new Date(t.clock.now() + 7 * DAY).toISOString(),
    });
  });

  it('never answers a column the schema does not declare (no password hash)', async () => {
    const account = await createTestUser(t);
    const { otter, deviceId } = await signIn(t.app, account);
    const body = (await getSession(t, otter, deviceId)).body;
    expect(body).not.toContain('argon2');
    expect(body).not.toMatch(/password|hash|deactivated|created_at/i);
  });

  it('serializes through the contract schema, which drops undeclared fields', () => {
    const serialize = serializerCompiler({ schema: CALLS.session.response, method: 'GET', url: SESSION_URL, httpStatus: '200' });
    const user = { id: 'u', email: 'a@example.com', firstName: null, lastName: null, emailVerified: true, password_hash: '$argon2id$secret' };
    const text = serialize({ user, expiresAt: new Date(0).toISOString(), otter: 'leak' });
    expect(text).not.toContain('argon2');
    expect(text).not.toContain('leak');
  });

  it('accepts the token as a Bearer header (native clients)', async () => {
    const { otter, deviceId } = await signIn(t.app, await createTestUser(t));
    const response = await t.app.inject({
      method: 'GET',
      url: SESSION_URL,
      headers: { authorization: `Bearer ${otter}`, [DEVICE_ID_HEADER]: deviceId },
    });
    expect(response.statusCode).toBe(200);
  });

  it('is not signed in from another device, without a device id, or without a token', async () => {
    const { otter, deviceId } = await signIn(t.app, await createTestUser(t));
    for (const response of [
      await getSession(t, otter, newDeviceId()),
      await t.app.inject({ method: 'GET', url: SESSION_URL, cookies: { [sessionCookieName(t.config)]: otter } }),
      await t.app.inject({ method: 'GET', url: SESSION_URL, headers: { [DEVICE_ID_HEADER]: deviceId } }),
      await getSession(t, 'A'.repeat(43), deviceId),
      await getSession(t, 'not a token', deviceId),
    ]) {
      expect(response.statusCode).toBe(401);
      expect(response.json()).toEqual({ errorMessage: 'notSignedIn' });
    }
    // The wrong device did not end the session for the right one.
    expect((await getSession(t, otter, deviceId)).statusCode).toBe(200);
  });

  it('stores only the SHA-256 of the token', async () => {
    const account = await createTestUser(t);
    const { otter } = await signIn(t.app, account);
    const rows = await t.db.selectFrom('sessions').select('id').where('user_id', '=', account.user.id).execute();
    expect(rows).toEqual([{ id: sha256Hex(otter) }]);
  });

  it('ends the session on sign-out, clears the cookie, and then is not signed in', async () => {
    const { otter, deviceId } = await signIn(t.app, await createTestUser(t));
    const response = await signOut({ [sessionCookieName(t.config)]: otter });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({});
    const cleared = setCookie(response, 'otter_test');
    expect(cleared?.value).toBe('');
    expect(cleared?.expires?.getTime()).toBeLessThanOrEqual(Date.now());
    expect((await getSession(t, otter, deviceId)).statusCode).toBe(401);
  });

  it('answers sign-out with 200 when not signed in', async () => {
    const response = await signOut({});
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({});
  });

  it('refuses sign-out without the XSRF header', async () => {
    const { otter, deviceId } = await signIn(t.app, await createTestUser(t));
    const response = await t.app.inject({ method: 'POST', url: SIGNOUT_URL, cookies: { [sessionCookieName(t.config)]: otter }, payload: {} });
    expect(response.statusCode).toBe(403);
    expect(response.json()).toEqual({ errorMessage: 'xsrfMismatch' });
    expect((await getSession(t, otter, deviceId)).statusCode).toBe(200);
  });

  it('expires after 7 idle days, and stays alive while used', async () => {
    const { otter, deviceId } = await signIn(t.app, await createTestUser(t));
    for (let day = 0; day < 3; day++) {
      t.clock.advance(6 * DAY);
      expect((await getSession(t, otter, deviceId)).statusCode).toBe(200);
    }
    t.clock.advance(7 * DAY);
    expect((await getSession(t, otter, deviceId)).statusCode).toBe(401);
    expect(await t.db.selectFrom('sessions').select('id').where('id', '=', sha256Hex(otter)).execute()).toEqual([]);
  });

  it('expires 30 days after sign-in however busy it is', async () => {
    const { otter, deviceId } = await signIn(t.app, await createTestUser(t));
    for (let i = 0; i < 4; i++) {
      t.clock.advance(6 * DAY);
      expect((await getSession(t, otter, deviceId)).statusCode).toBe(200);
    }
    t.clock.advance(6 * DAY - 1);
    const last = await getSession(t, otter, deviceId);
    expect(last.statusCode).toBe(200);
    // Absolute expiry caps the idle one.
    expect(last.json<{ expiresAt: string }>().expiresAt).toBe(new Date(t.clock.now() + 1).toISOString());
    t.clock.advance(1);
    expect((await getSession(t, otter, deviceId)).statusCode).toBe(401);
  });

  it('writes last_seen_at at most once an hour', async () => {
    const { otter, deviceId } = await signIn(t.app, await createTestUser(t));
    const start = t.clock.now();
    const lastSeen = async () =>
      (await t.db.selectFrom('sessions').select('last_seen_at').where('id', '=', sha256Hex(otter)).executeTakeFirstOrThrow()).last_seen_at;
    t.clock.advance(59 * MINUTE);
    await getSession(t, otter, deviceId);
    expect(await lastSeen()).toBe(start);
    t.clock.advance(HOUR);
    await getSession(t, otter, deviceId);
    expect(await lastSeen()).toBe(start + 119 * MINUTE);
  });

  it('ends every session of an account when it is deactivated', async () => {
    const account = await createTestUser(t);
    const first = await signIn(t.app, account);
    const second = await signIn(t.app, account);
    await deactivateUser(t.deps, account.email, CLI_META);
    expect((await getSession(t, first.otter, first.deviceId)).statusCode).toBe(401);
    expect((await getSession(t, second.otter, second.deviceId)).statusCode).toBe(401);
    expect(await t.db.selectFrom('sessions').select('id').where('user_id', '=', account.user.id).execute()).toEqual([]);
  });

  it('replaces the session this browser held when it signs in again', async () => {
    const account = await createTestUser(t);
    const first = await signIn(t.app, account);
    const pair = xsrf();
    const again = await t.app.inject({
      method: 'POST',
      url: API_BASE + CALLS.signin.path,
      cookies: { ...pair.cookies, [sessionCookieName(t.config)]: first.otter },
      headers: pair.headers,
      payload: { email: account.email, hashPassword: sha256Hex(account.password), deviceId: first.deviceId },
    });
    expect(again.statusCode).toBe(200);
    expect((await getSession(t, first.otter, first.deviceId)).statusCode).toBe(401);
    expect((await getSession(t, again.json<{ otter: string }>().otter, first.deviceId)).statusCode).toBe(200);
  });

  it('keeps everything as it was when a sign-in cannot write its new session: the count, the old session, no success in the audit', async () => {
    const account = await createTestUser(t);
    const first = await signIn(t.app, account);
    const refused = newDeviceId();
    // A fault in the last of the success's writes, on this device only.
    const restore = await refuseInserts(t.db, 'sessions', `new.device_id = '${refused}'`);
    try {
      const pair = xsrf();
      const post = (hashPassword: string) =>
        t.app.inject({
          method: 'POST',
          url: API_BASE + CALLS.signin.path,
          cookies: { ...pair.cookies, [sessionCookieName(t.config)]: first.otter },
          headers: pair.headers,
          payload: { email: account.email, hashPassword, deviceId: refused },
        });
      expect((await post(sha256Hex('wrong password'))).statusCode).toBe(401);
      const failed = await post(sha256Hex(account.password));
      expect(failed.statusCode).toBe(500);
      expect(setCookie(failed, sessionCookieName(t.config))).toBeUndefined();
      // The reservation of the second attempt stands (it was written before the password check);
      // nothing of the success was kept.
      expect((await getFailureCount(t.db, account.email))?.failures).toBe(2);
      expect(await listAuditEvents(t.db, { emailKey: account.email, type: 'signin.success' })).toHaveLength(1);
      expect((await getSession(t, first.otter, first.deviceId)).statusCode).toBe(200);
    } finally {
      await restore();
    }
  });

  it('removes expired sessions in housekeeping', async () => {
    const stale = await signIn(t.app, await createTestUser(t));
    t.clock.advance(8 * DAY);
    const live = await signIn(t.app, await createTestUser(t));
    expect(await deleteExpiredSessions(t.db, t.clock.now(), t.config.session.idleMs)).toBeGreaterThanOrEqual(1);
    const ids = (await t.db.selectFrom('sessions').select('id').execute()).map((row) => row.id);
    expect(ids).not.toContain(sha256Hex(stale.otter));
    expect(ids).toContain(sha256Hex(live.otter));
  });
});
