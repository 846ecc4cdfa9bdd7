import { normalizeEmail } from '@foyer/contract';
import { describe, expect, it } from 'vitest';
import {
  MINUTE,
  createTestApp,
  createTestDatabase,
  createTestUser,
  dbUnavailable,
  newDeviceId,
  postSignIn,
  sessionCookieName,
  setCookie,
  signInUrl,
  uniqueEmail,
  useTestApp,
  xsrf,
} from '../../../test/helpers.js';
import { AppError } from '../../lib/errors.js';
import { listAuditEvents } from '../audit/audit.repo.js';
import { getFailureCount } from '../lockout/lockout.repo.js';

describe.skipIf(dbUnavailable)('POST /api/account/signin', () => {
  const t = useTestApp();

  it('signs in: answers the otter and sets an HttpOnly SameSite=Strict session cookie', async () => {
    const { email, password } = await createTestUser(t);
    const response = await postSignIn(t.app, { email, password });
    expect(response.statusCode).toBe(200);
    const body = response.json<{ otter: string }>();
    expect(Object.keys(body)).toEqual(['otter']);
    expect(body.otter).toMatch(/^[A-Za-z0-9_-]{43}$/);

    const cookie = setCookie(response, 'otter_test');
    expect(sessionCookieName(t.config)).toBe('otter_test');
    expect(cookie).toMatchObject({ value: body.otter, httpOnly: true, sameSite: 'Strict', path: '/' });
    // localhost: host-only and not Secure (spec §3); Max-Age is the absolute lifetime.
    expect(cookie?.domain).toBeUndefined();
    expect(cookie?.secure).toBeUndefined();
    expect(cookie?.maxAge).toBe(30 * 24 * 60 * 60);
  });

  it('accepts the email in any case and with spaces around it', async () => {
    const { email, password } = await createTestUser(t);
    const response = await postSignIn(t.app, { email: `  ${email.toUpperCase()} `, password });
    expect(response.statusCode).toBe(200);
  });

  it('answers invalidCredentials for a wrong password and the same for an unknown email', async () => {
    const { email } = await createTestUser(t);
    const wrong = await postSignIn(t.app, { email, password: 'not the password' });
    const unknown = await postSignIn(t.app, { email: uniqueEmail('nobody'), password: 'not the password' });
    expect(wrong.statusCode).toBe(401);
    expect(unknown.statusCode).toBe(401);
    expect(wrong.json()).toEqual({ errorMessage: 'invalidCredentials' });
    expect(unknown.body).toBe(wrong.body);
    expect(setCookie(wrong, 'otter_test')).toBeUndefined();
  });

  it('treats an account without a password like a wrong password', async () => {
    const { email, password } = await createTestUser(t, { withoutPassword: true });
    const response = await postSignIn(t.app, { email, password });
    expect(response.statusCode).toBe(401);
    expect(response.json()).toEqual({ errorMessage: 'invalidCredentials' });
  });

  it('answers 503 unavailable with Retry-After when the hashing threads are full, and counts no failure (decision 0011)', async () => {
    const { email, password } = await createTestUser(t);
    const passwords = t.app.passwords;
    const verify = passwords.verify.bind(passwords);
    passwords.verify = () => Promise.reject(new AppError('unavailable'));
    try {
      for (let i = 0; i < 12; i++) {
        const refused = await postSignIn(t.app, { email, password: 'wrong' });
        expect(refused.statusCode).toBe(503);
        expect(refused.json()).toEqual({ errorMessage: 'unavailable' });
        expect(refused.headers['retry-after']).toBe('5');
      }
    } finally {
      passwords.verify = verify;
    }
    // No password was checked: twelve refusals neither locked the email nor counted against it.
    expect((await getFailureCount(t.db, normalizeEmail(email)))?.failures ?? 0).toBe(0);
    expect((await postSignIn(t.app, { email, password })).statusCode).toBe(200);
  });

  it('signs in with the right password while the hashing threads turn away the hash at today’s cost: a later sign-in upgrades it', async () => {
    const { email, password } = await createTestUser(t);
    const passwords = t.app.passwords;
    const { needsRehash, hash } = passwords;
    passwords.needsRehash = () => true;
    passwords.hash = () => Promise.reject(new AppError('unavailable'));
    try {
      expect((await postSignIn(t.app, { email, password })).statusCode).toBe(200);
    } finally {
      passwords.needsRehash = needsRehash;
      passwords.hash = hash;
    }
    expect((await getFailureCount(t.db, normalizeEmail(email)))?.failures ?? 0).toBe(0);
  });

  it('locks an email after 10 failures, also refusing the right password, for 30 minutes', async () => {
    const { email, password } = await createTestUser(t);
    for (let i = 1; i <= 9; i++) {
      const response = await postSignIn(t.app, { email, password: 'wrong' });
      expect(response.json()).toEqual({ errorMessage: 'invalidCredentials' });
    }
    const tenth = await postSignIn(t.app, { email, password: 'wrong' });
    expect(tenth.statusCode).toBe(423);
    expect(tenth.json()).toEqual({ errorMessage: 'accountLocked' });

    const rightWhileLocked = await postSignIn(t.app, { email, password });
    expect(rightWhileLocked.statusCode).toBe(423);
    expect(rightWhileLocked.json()).toEqual({ errorMessage: 'accountLocked' });

    t.clock.advance(29 * MINUTE);
    expect((await postSignIn(t.app, { email, password })).statusCode).toBe(423);
    t.clock.advance(MINUTE + 1);
    expect((await postSignIn(t.app, { email, password })).statusCode).toBe(200);
    expect(await getFailureCount(t.db, normalizeEmail(email))).toBeUndefined();
  });

  it('keeps a lock across a restart: it lives in the database, not in the process', async () => {
    const database = await createTestDatabase();
    const first = await createTestApp({ database });
    const { email, password } = await createTestUser(first);
    for (let i = 0; i < 10; i++) await postSignIn(first.app, { email, password: 'wrong' });
    await first.close();

    const restarted = await createTestApp({ database });
    try {
      const response = await postSignIn(restarted.app, { email, password });
      expect(response.statusCode).toBe(423);
      expect(response.json()).toEqual({ errorMessage: 'accountLocked' });
    } finally {
      await restarted.close();
      await database.destroy();
    }
  });

  it('locks an unknown email exactly like a known one (no enumeration through the lock)', async () => {
    const email = uniqueEmail('ghost');
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) statuses.push((await postSignIn(t.app, { email, password: 'wrong' })).statusCode);
    expect(statuses).toEqual([401, 401, 401, 401, 401, 401, 401, 401, 401, 423, 423]);
  });

  it('starts the count again once a lock has run out', async () => {
    const { email, password } = await createTestUser(t);
    for (let i = 0; i < 10; i++) await postSignIn(t.app, { email, password: 'wrong' });
    t.clock.advance(31 * MINUTE);
    const afterLock = await postSignIn(t.app, { email, password: 'wrong' });
    expect(afterLock.json()).toEqual({ errorMessage: 'invalidCredentials' });
    expect((await getFailureCount(t.db, normalizeEmail(email)))?.failures).toBe(1);
    expect((await postSignIn(t.app, { email, password })).statusCode).toBe(200);
  });

  it('forgets earlier failures after a successful sign-in', async () => {
    const { email, password } = await createTestUser(t);
    for (let i = 0; i < 9; i++) await postSignIn(t.app, { email, password: 'wrong' });
    expect((await postSignIn(t.app, { email, password })).statusCode).toBe(200);
    expect(await getFailureCount(t.db, normalizeEmail(email))).toBeUndefined();
    for (let i = 0; i < 9; i++) {
      expect((await postSignIn(t.app, { email, password: 'wrong' })).statusCode).toBe(401);
    }
  });

  it('counts 20 parallel failures for one email exactly (atomic upsert)', async () => {
    // With the default threshold of 10, a request that reads the lock after the tenth failure is
    // refused uncounted, so the count would depend on scheduling; above 20, every one counts.
    const own = await createTestApp({ env: { LOCKOUT_THRESHOLD: '100' } });
    try {
      const email = uniqueEmail('race');
      await Promise.all(Array.from({ length: 20 }, () => postSignIn(own.app, { email, password: 'wrong' })));
      expect((await getFailureCount(own.db, normalizeEmail(email)))?.failures).toBe(20);
    } finally {
      await own.close();
    }
  });

  it('tells deactivatedAccount only to someone who knows the password', async () => {
    const { email, password } = await createTestUser(t, { deactivated: true });
    const right = await postSignIn(t.app, { email, password });
    expect(right.statusCode).toBe(403);
    expect(right.json()).toEqual({ errorMessage: 'deactivatedAccount' });
    const wrong = await postSignIn(t.app, { email, password: 'wrong' });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json()).toEqual({ errorMessage: 'invalidCredentials' });
  });

  it('tells unverifiedAccount only to someone who knows the password', async () => {
    const { email, password } = await createTestUser(t, { verified: false });
    const right = await postSignIn(t.app, { email, password });
    expect(right.statusCode).toBe(403);
    expect(right.json()).toEqual({ errorMessage: 'unverifiedAccount' });
    expect(setCookie(right, 'otter_test')).toBeUndefined();
    const wrong = await postSignIn(t.app, { email, password: 'wrong' });
    expect(wrong.json()).toEqual({ errorMessage: 'invalidCredentials' });
  });

  it('writes audit events for success, failure and lock, without the password', async () => {
    const { email, password, user } = await createTestUser(t);
    const emailKey = normalizeEmail(email);
    await postSignIn(t.app, { email, password: 'wrong' });
    await postSignIn(t.app, { email, password });
    for (let i = 0; i < 10; i++) await postSignIn(t.app, { email, password: 'wrong' });

    const events = await listAuditEvents(t.db, { emailKey });
    const types = events.map((event) => event.type);
    expect(types.filter((type) => type === 'signin.success')).toHaveLength(1);
    expect(types.filter((type) => type === 'signin.failure')).toHaveLength(11);
    expect(types).toContain('signin.locked');
    const success = events.find((event) => event.type === 'signin.success');
    expect(success).toMatchObject({ user_id: user.id, email_key: emailKey, ip: '127.0.0.1', user_agent: 'lightMyRequest' });
    expect(JSON.stringify(events)).not.toContain(password);
  });

  it('upgrades a hash made with older parameters on a successful sign-in', async () => {
    const { email, password, user } = await createTestUser(t);
    const { hash } = await import('@node-rs/argon2');
    const { sha256Hex } = await import('../../lib/crypto.js');
    const weak = await hash(sha256Hex(password), { memoryCost: 512, timeCost: 1, parallelism: 1 });
    await t.db.updateTable('users').set({ password_hash: weak }).where('id', '=', user.id).execute();
    expect((await postSignIn(t.app, { email, password })).statusCode).toBe(200);
    const row = await t.db.selectFrom('users').select('password_hash').where('id', '=', user.id).executeTakeFirstOrThrow();
    expect(row.password_hash).not.toBe(weak);
    expect(row.password_hash).toContain('m=1024,t=1,p=1');
  });

  describe('bad input gets 400 invalidRequest, never a 5xx', () => {
    const send = (payload: string, contentType = 'application/json') => {
      const pair = xsrf();
      return t.app.inject({ method: 'POST', url: signInUrl(), cookies: pair.cookies, headers: { ...pair.headers, 'content-type': contentType }, payload });
    };

    it('malformed JSON', async () => {
      const response = await send('{"email": ');
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({ errorMessage: 'invalidRequest' });
    });

    it('missing fields, naming them', async () => {
      const response = await send(JSON.stringify({ email: 'a@example.com' }));
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual({ errorMessage: 'invalidRequest', fields: ['hashPassword', 'deviceId'] });
    });

    it('wrong types and shapes', async () => {
      for (const body of [
        { email: 5, hashPassword: 'a'.repeat(64), deviceId: newDeviceId() },
        { email: 'a@example.com', hashPassword: 'plain password', deviceId: newDeviceId() },
        { email: 'a@example.com', hashPassword: 'a'.repeat(64), deviceId: 'short' },
        { email: '   ', hashPassword: 'a'.repeat(64), deviceId: newDeviceId() },
        [],
        'text',
        null,
      ]) {
        const response = await send(JSON.stringify(body));
        expect(response.statusCode, JSON.stringify(body)).toBe(400);
        expect(response.json<{ errorMessage: string }>().errorMessage).toBe('invalidRequest');
      }
    });

    it('an empty body', async () => {
      const response = await send('');
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({ errorMessage: 'invalidRequest' });
    });

    it('prototype poisoning', async () => {
      const response = await send('{"email":"a@example.com","__proto__":{"admin":true}}');
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({ errorMessage: 'invalidRequest' });
    });

    it('a wrong content type (415)', async () => {
      const response = await send('email=a@example.com', 'application/x-www-form-urlencoded');
      expect(response.statusCode).toBe(415);
      expect(response.json()).toEqual({ errorMessage: 'invalidRequest' });
    });

    it('a huge body (413)', async () => {
      const response = await send(JSON.stringify({ email: 'a'.repeat(200_000), hashPassword: 'a'.repeat(64), deviceId: newDeviceId() }));
      expect(response.statusCode).toBe(413);
      expect(response.json()).toEqual({ errorMessage: 'invalidRequest' });
    });

    it('an email longer than any mailbox', async () => {
      const response = await send(JSON.stringify({ email: `${'a'.repeat(300)}@example.com`, hashPassword: 'a'.repeat(64), deviceId: newDeviceId() }));
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual({ errorMessage: 'invalidRequest', fields: ['email'] });
    });
  });
});
