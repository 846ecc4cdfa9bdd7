import { normalizeEmail } from '@foyer/contract';
import { describe, expect, it } from 'vitest';
import { SETUP_URL, mailsTo, postJson } from '../../../test/account-entry.js';
import {
  HOUR,
  MINUTE,
  createTestUser,
  dbUnavailable,
  getSession,
  holdNextPasswordCheck,
  newDeviceId,
  postSignIn,
  sessionCookieName,
  setCookie,
  signIn,
  useTestApp,
} from '../../../test/helpers.js';
import { postReset, randomAddress, requestResetToken } from '../../../test/password.js';
import { listAuditEvents } from '../audit/audit.repo.js';
import { unitOfWork } from '../../lib/unit-of-work.js';
import { sha256Hex } from '../../lib/crypto.js';
import { issueToken } from '../tokens/tokens.js';
import { getFailureCount } from '../lockout/lockout.repo.js';
import { findUserById } from '../users/users.repo.js';
import { limiterTime } from '../../../test/limiter-time.js';

describe.skipIf(dbUnavailable)('POST /api/account/resetPassword', () => {
  const t = useTestApp();

  it('sets the password, ends every session, clears the lock, and mails the owner', async () => {
    const account = await createTestUser(t);
    const emailKey = normalizeEmail(account.email);
    const before = await signIn(t.app, account);
    const other = await signIn(t.app, account);
    for (let i = 0; i < 10; i++) await postSignIn(t.app, { email: account.email, password: 'wrong' });
    expect((await postSignIn(t.app, account)).statusCode).toBe(423);

    const token = await requestResetToken(t, account.email);
    const response = await postReset(t, token, 'a brand new password');
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({});
    // No session is started: the person signs in with the new password.
    expect(response.headers['set-cookie']).toBeUndefined();

    expect((await getSession(t, before.otter, before.deviceId)).statusCode).toBe(401);
    expect((await getSession(t, other.otter, other.deviceId)).statusCode).toBe(401);
    expect(await getFailureCount(t.db, emailKey)).toBeUndefined();
    expect((await postSignIn(t.app, account)).json()).toEqual({ errorMessage: 'invalidCredentials' });
    expect((await postSignIn(t.app, { email: account.email, password: 'a brand new password' })).statusCode).toBe(200);

    const changed = await mailsTo(t, account.email, 'passwordChanged');
    expect(changed).toHaveLength(1);
    expect(changed[0]).toMatchObject({ locale: 'en', subject: 'Your Foyer password was changed' });
    expect(changed[0]?.text_body).toContain(`${t.config.publicUrl}/forgot-password`);
    expect(changed[0]?.text_body).not.toContain('/reset-password/');

    const reset = await listAuditEvents(t.db, { emailKey, type: 'password.reset' });
    expect(reset.map((event) => JSON.parse(event.detail ?? '{}') as unknown)).toEqual([{ sessionsEnded: 2, lockCleared: true }]);
    expect(reset[0]).toMatchObject({ user_id: account.user.id, ip: '127.0.0.1', user_agent: 'lightMyRequest' });
  });

  it('starts no session for a sign-in whose old password was being verified while the reset committed', async () => {
    const account = await createTestUser(t);
    const token = await requestResetToken(t, account.email);
    // The sign-in reads the old hash, then waits in its verification while the reset commits.
    const check = holdNextPasswordCheck(t);
    const signingIn = postSignIn(t.app, account);
    await check.inside;
    expect((await postReset(t, token, 'a brand new password')).statusCode).toBe(200);
    check.release();

    const answer = await signingIn;
    expect(answer.statusCode).toBe(401);
    expect(answer.json()).toEqual({ errorMessage: 'invalidCredentials' });
    expect(answer.headers['set-cookie']).toBeUndefined();
    expect(await t.db.selectFrom('sessions').select('id').where('user_id', '=', account.user.id).execute()).toEqual([]);
    const emailKey = normalizeEmail(account.email);
    expect(await listAuditEvents(t.db, { emailKey, type: 'signin.success' })).toEqual([]);
    const refused = await listAuditEvents(t.db, { emailKey, type: 'signin.failure' });
    expect(refused.map((event) => (JSON.parse(event.detail ?? '{}') as { reason?: string }).reason)).toEqual(['credentialsChanged']);
    // The reset's password is the account's, and signs in.
    expect((await postSignIn(t.app, { email: account.email, password: 'a brand new password' })).statusCode).toBe(200);
  });

  it('keeps the reset password when a sign-in with the old one was about to store it at a higher cost', async () => {
    const account = await createTestUser(t);
    const token = await requestResetToken(t, account.email);
    const passwords = t.app.passwords;
    const needsRehash = passwords.needsRehash.bind(passwords);
    passwords.needsRehash = () => true;
    const check = holdNextPasswordCheck(t);
    try {
      const signingIn = postSignIn(t.app, account);
      await check.inside;
      expect((await postReset(t, token, 'a brand new password')).statusCode).toBe(200);
      check.release();
      expect((await signingIn).json()).toEqual({ errorMessage: 'invalidCredentials' });
    } finally {
      passwords.needsRehash = needsRehash;
      check.restore();
    }
    expect((await postSignIn(t.app, account)).json()).toEqual({ errorMessage: 'invalidCredentials' });
    expect((await postSignIn(t.app, { email: account.email, password: 'a brand new password' })).statusCode).toBe(200);
  });

  it('verifies the email of an unverified account: the link reached it', async () => {
    const account = await createTestUser(t, { verified: false });
    await postReset(t, await requestResetToken(t, account.email), 'a brand new password');
    expect((await findUserById(t.db, account.user.id))?.email_verified_at).toBe(t.clock.now());
    expect((await postSignIn(t.app, { email: account.email, password: 'a brand new password' })).statusCode).toBe(200);
    expect((await listAuditEvents(t.db, { emailKey: normalizeEmail(account.email), type: 'email.verified' })).length).toBe(1);
  });

  it('works once: the same link again answers invalidToken (400)', async () => {
    const { email } = await createTestUser(t);
    const token = await requestResetToken(t, email);
    expect((await postReset(t, token, 'a brand new password')).statusCode).toBe(200);
    const again = await postReset(t, token, 'another new password');
    expect(again.statusCode).toBe(400);
    expect(again.json()).toEqual({ errorMessage: 'invalidToken' });
    expect((await postSignIn(t.app, { email, password: 'a brand new password' })).statusCode).toBe(200);
  });

  it('lets exactly one of two racing requests with one link through', async () => {
    const { email } = await createTestUser(t);
    const token = await requestResetToken(t, email);
    const answers = await Promise.all([postReset(t, token, 'first new password'), postReset(t, token, 'second new password')]);
    expect(answers.map((answer) => answer.statusCode).sort()).toEqual([200, 400]);
    expect(await mailsTo(t, email, 'passwordChanged')).toHaveLength(1);
  });

  it('works for an hour, then answers tokenExpired (410)', async () => {
    const { email } = await createTestUser(t);
    const late = await requestResetToken(t, email);
    t.clock.advance(HOUR);
    const expired = await postReset(t, late, 'a brand new password');
    expect(expired.statusCode).toBe(410);
    expect(expired.json()).toEqual({ errorMessage: 'tokenExpired' });

    const timely = await requestResetToken(t, email);
    t.clock.advance(59 * MINUTE);
    expect((await postReset(t, timely, 'a brand new password')).statusCode).toBe(200);
  });

  it('answers invalidToken for an unknown link, another kind of link, or an account deactivated since', async () => {
    const account = await createTestUser(t);
    const verify = await issueToken(unitOfWork(t), { userId: account.user.id, purpose: 'verifyEmail' });
    for (const token of ['A'.repeat(43), verify]) {
      const response = await postReset(t, token, 'a brand new password');
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual({ errorMessage: 'invalidToken' });
    }
    const token = await requestResetToken(t, account.email);
    await t.db.updateTable('users').set({ deactivated_at: t.clock.now() }).where('id', '=', account.user.id).execute();
    expect((await postReset(t, token, 'a brand new password')).json()).toEqual({ errorMessage: 'invalidToken' });
  });

  it('ends the account’s other emailed links, each of which could sign someone in', async () => {
    const account = await createTestUser(t, { verified: false });
    const verify = await issueToken(unitOfWork(t), { userId: account.user.id, purpose: 'verifyEmail' });
    const invitation = await issueToken(unitOfWork(t), { userId: account.user.id, purpose: 'invitation' });
    await postReset(t, await requestResetToken(t, account.email), 'a brand new password');
    // The reset verified the email: the verification link says so (decision 0020) and signs nobody in.
    const again = await postJson(t, SETUP_URL, { token: verify, deviceId: newDeviceId() });
    expect(again.json()).toEqual({ errorMessage: 'alreadyVerified' });
    expect(setCookie(again, sessionCookieName(t.config))).toBeUndefined();
    expect((await postJson(t, SETUP_URL, { token: invitation, deviceId: newDeviceId() })).json()).toEqual({ errorMessage: 'invalidToken' });
    const ended = await t.db
      .selectFrom('email_tokens')
      .select('ended_reason')
      .where('id', 'in', [sha256Hex(verify), sha256Hex(invitation)])
      .execute();
    expect(ended.map((row) => row.ended_reason)).toEqual(['passwordReset', 'passwordReset']);
  });

  it('refuses the current password and each of the last five with recentPassword (409), allowing the sixth-oldest', async () => {
    const time = limiterTime(t);
    const account = await createTestUser(t, { password: 'password number 0' });
    const reset = async (password: string) => {
      // A fresh hour for each link keeps the 5-per-hour forgot limit out of the way.
      time.advance(HOUR);
      return postReset(t, await requestResetToken(t, account.email), password);
    };
    for (let n = 1; n <= 5; n++) expect((await reset(`password number ${n}`)).statusCode).toBe(200);

    // Current: 5; history: 4, 3, 2, 1, 0.
    time.advance(HOUR);
    const token = await requestResetToken(t, account.email);
    for (let n = 5; n >= 0; n--) {
      const refused = await postReset(t, token, `password number ${n}`);
      expect(refused.statusCode, `password ${n}`).toBe(409);
      expect(refused.json()).toEqual({ errorMessage: 'recentPassword' });
    }
    // A refusal does not spend the link.
    expect((await postReset(t, token, 'password number 6')).statusCode).toBe(200);

    // Current: 6; history: 5, 4, 3, 2, 1. Number 0 is six changes back: allowed again.
    const rows = await t.db.selectFrom('password_history').select('seq').where('user_id', '=', account.user.id).orderBy('seq').execute();
    expect(rows.map((row) => row.seq)).toEqual([2, 3, 4, 5, 6]);
    expect((await reset('password number 1')).json()).toEqual({ errorMessage: 'recentPassword' });
    expect((await reset('password number 0')).statusCode).toBe(200);
    expect((await postSignIn(t.app, { email: account.email, password: 'password number 0' })).statusCode).toBe(200);
  });

  it('gives an account without a password one (an invitee who never finished setup)', async () => {
    const account = await createTestUser(t, { withoutPassword: true });
    expect((await postReset(t, await requestResetToken(t, account.email), 'a brand new password')).statusCode).toBe(200);
    expect(await t.db.selectFrom('password_history').select('id').where('user_id', '=', account.user.id).execute()).toEqual([]);
    expect((await postSignIn(t.app, { email: account.email, password: 'a brand new password' })).statusCode).toBe(200);
  });

  it('allows 30 attempts per client address in 15 minutes, then answers 429 with Retry-After', async () => {
    const time = limiterTime(t);
    for (let i = 0; i < 30; i++) expect((await postReset(t, `unknown-token-${i}-xxxxxxxxxx`, 'a brand new password')).statusCode).toBe(400);
    const refused = await postReset(t, 'unknown-token-last-xxxxxxxxxx', 'a brand new password');
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toEqual({ errorMessage: 'rateLimitExeeded' });
    expect(refused.headers['retry-after']).toBe(String(15 * 60));
    time.advance(15 * MINUTE);
    expect((await postReset(t, 'unknown-token-next-xxxxxxxxxx', 'a brand new password')).statusCode).toBe(400);
  });

  it('allows 10 attempts per link an hour from any address: a stolen link is no oracle on old passwords', async () => {
    const account = await createTestUser(t, { password: 'the current password' });
    const token = await requestResetToken(t, account.email);
    for (let i = 0; i < 10; i++) {
      expect((await postReset(t, token, 'the current password', { remoteAddress: randomAddress() })).statusCode).toBe(409);
    }
    const refused = await postReset(t, token, 'a brand new password', { remoteAddress: randomAddress() });
    expect(refused.statusCode).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('refuses malformed input with invalidRequest, never a 5xx, and a link cut short with invalidToken (spec §8)', async () => {
    const cut = await postJson(t, '/api/account/resetPassword', { token: 'short', hashPassword: 'a'.repeat(64) });
    expect(cut.statusCode).toBe(400);
    expect(cut.json()).toEqual({ errorMessage: 'invalidToken' });
    for (const body of [
      { token: '', hashPassword: 'a'.repeat(64) },
      { token: 'A'.repeat(201), hashPassword: 'a'.repeat(64) },
      { token: 'A'.repeat(43), hashPassword: 'plain' },
      { token: 'A'.repeat(43) },
      {},
    ]) {
      const response = await postJson(t, '/api/account/resetPassword', body);
      expect(response.statusCode, JSON.stringify(body)).toBe(400);
      expect(response.json<{ errorMessage: string }>().errorMessage).toBe('invalidRequest');
    }
  });
});
