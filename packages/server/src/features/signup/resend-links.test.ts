import { API_BASE, CALLS, normalizeEmail } from '@foyer/contract';
import { describe, expect, it } from 'vitest';
import {
  PASSWORD,
  RESEND_URL,
  SETUP_URL,
  getFields,
  invitee,
  latestToken,
  mailsTo,
  postJson,
  postSignUp,
  signUpBody,
} from '../../../test/account-entry.js';
import { createTestUser, dbUnavailable, newDeviceId, postSignIn, useTestApp, type TestApp } from '../../../test/helpers.js';
import { limiterTime } from '../../../test/limiter-time.js';
import { requestResetToken } from '../../../test/password.js';
import { sha256Hex } from '../../lib/crypto.js';
import { AppError } from '../../lib/errors.js';
import { listAuditEvents } from '../audit/audit.repo.js';
import { getFailureCount } from '../lockout/lockout.repo.js';

const BY_LINK_URL = API_BASE + CALLS.resendVerificationByLink.path;
const BY_SIGN_IN_URL = API_BASE + CALLS.resendVerificationBySignIn.path;

/** A sign-up through the API with its own password: its email, sign-up id and first link. */
async function signUpFor(t: TestApp, overrides: Record<string, unknown> = {}) {
  const body = signUpBody(overrides);
  const response = await postSignUp(t, body);
  const userId = response.json<{ userId: string }>().userId;
  // Mails of one millisecond have no order: each step gets its own moment.
  t.clock.advance(1000);
  return { email: body.email, userId, token: await latestToken(t, body.email, 'verifyEmail') };
}

/** A superseded link: the first one, after 'Click to resend.' sent a newer one. */
async function supersededLink(t: TestApp) {
  const signup = await signUpFor(t);
  await postJson(t, RESEND_URL, { email: signup.email, userId: signup.userId });
  t.clock.advance(1000);
  return signup;
}

const bySignIn = (t: TestApp, email: string, password: string, remoteAddress?: string) =>
  postJson(t, BY_SIGN_IN_URL, { email, hashPassword: sha256Hex(password) }, remoteAddress === undefined ? {} : { remoteAddress });

describe.skipIf(dbUnavailable)('POST /api/account/resendVerification/byLink (decision 0020)', () => {
  const t = useTestApp();

  it("mails a fresh link for the superseded link's own sign-up, which then verifies with that sign-up's password", async () => {
    const { email, token } = await supersededLink(t);
    expect((await getFields(t, token)).json()).toEqual({ errorMessage: 'linkSuperseded' });
    const response = await postJson(t, BY_LINK_URL, { token });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({});
    expect((await mailsTo(t, email, 'verifyEmail')).length).toBe(3);
    const fresh = await latestToken(t, email, 'verifyEmail');
    expect((await postJson(t, SETUP_URL, { token: fresh, deviceId: newDeviceId() })).statusCode).toBe(200);
    expect((await postSignIn(t.app, { email, password: PASSWORD })).statusCode).toBe(200);
    const events = await listAuditEvents(t.db, { emailKey: normalizeEmail(email), type: 'verification.resent' });
    expect(events.map((event) => JSON.parse(event.detail ?? '{}') as unknown)).toContainEqual({ sent: 'verification', via: 'link' });
  });

  it('answers the same and sends nothing for an unknown link, an invitation, a reset link or a verified account', async () => {
    const invited = await invitee(t);
    const owner = await createTestUser(t);
    const reset = await requestResetToken(t, owner.email);
    const verified = await signUpFor(t);
    await postJson(t, SETUP_URL, { token: verified.token, deviceId: newDeviceId() });
    const before = await Promise.all([invited.email, owner.email, verified.email].map(async (email) => (await mailsTo(t, email)).length));
    for (const token of ['A'.repeat(43), invited.token, reset, verified.token]) {
      const response = await postJson(t, BY_LINK_URL, { token });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({});
    }
    const after = await Promise.all([invited.email, owner.email, verified.email].map(async (email) => (await mailsTo(t, email)).length));
    expect(after).toEqual(before);
  });

  it('allows 3 per link in 15 minutes, then answers 429 rateLimitExeeded', async () => {
    const time = limiterTime(t);
    const { email, token } = await supersededLink(t);
    for (let i = 0; i < 3; i++) expect((await postJson(t, BY_LINK_URL, { token }, { remoteAddress: `198.51.100.${i + 1}` })).statusCode).toBe(200);
    const refused = await postJson(t, BY_LINK_URL, { token }, { remoteAddress: '198.51.100.9' });
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toEqual({ errorMessage: 'rateLimitExeeded' });
    expect((await mailsTo(t, email, 'verifyEmail')).length).toBe(5);
    time.advance(15 * 60 * 1000);
    expect((await postJson(t, BY_LINK_URL, { token })).statusCode).toBe(200);
  });

  it('shares the per-address budget of every resend: 20 an hour', async () => {
    const remoteAddress = '203.0.113.41';
    for (let i = 0; i < 20; i++)
      expect((await postJson(t, BY_LINK_URL, { token: `${'B'.repeat(40)}${100 + i}` }, { remoteAddress })).statusCode).toBe(200);
    expect((await postJson(t, RESEND_URL, { email: 'last@example.com', userId: 'A'.repeat(22) }, { remoteAddress })).statusCode).toBe(429);
  });
});

describe.skipIf(dbUnavailable)('POST /api/account/resendVerification/bySignIn (decision 0020)', () => {
  const t = useTestApp();

  it('answers 503 and counts no failure when the hashing threads are full (decision 0011)', async () => {
    const first = await signUpFor(t);
    const passwords = t.app.passwords;
    const verify = passwords.verify.bind(passwords);
    passwords.verify = () => Promise.reject(new AppError('unavailable'));
    try {
      for (let i = 0; i < 3; i++) expect((await bySignIn(t, first.email, PASSWORD)).statusCode).toBe(503);
    } finally {
      passwords.verify = verify;
    }
    expect((await getFailureCount(t.db, normalizeEmail(first.email)))?.failures ?? 0).toBe(0);
  });

  it("mails a fresh link for the sign-up whose password was given, ending only that sign-up's earlier link", async () => {
    const first = await signUpFor(t);
    const other = await signUpFor(t, { email: first.email, hashPassword: sha256Hex('another long password') });
    expect((await postSignIn(t.app, { email: first.email, password: PASSWORD })).json()).toEqual({ errorMessage: 'unverifiedAccount' });
    const response = await bySignIn(t, first.email.toUpperCase(), PASSWORD);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({});
    expect((await mailsTo(t, first.email, 'verifyEmail')).length).toBe(3);
    // The first sign-up's old link is superseded; the other sign-up's link still works.
    expect((await getFields(t, first.token)).json()).toEqual({ errorMessage: 'linkSuperseded' });
    expect((await getFields(t, other.token)).statusCode).toBe(200);
    const fresh = await latestToken(t, first.email, 'verifyEmail');
    expect((await postJson(t, SETUP_URL, { token: fresh, deviceId: newDeviceId() })).statusCode).toBe(200);
    expect((await postSignIn(t.app, { email: first.email, password: PASSWORD })).statusCode).toBe(200);
  });

  it('answers the same and sends nothing for a wrong password, an unknown email or a verified account', async () => {
    const pending = await signUpFor(t);
    const verified = await createTestUser(t);
    const unknown = `nobody.${Date.now()}@example.com`;
    const answers = [
      await bySignIn(t, pending.email, 'not the password'),
      await bySignIn(t, unknown, PASSWORD),
      await bySignIn(t, verified.email, verified.password),
    ];
    for (const answer of answers) {
      expect(answer.statusCode).toBe(200);
      expect(answer.body).toBe('{}');
    }
    expect((await mailsTo(t, pending.email)).length).toBe(1);
    expect(await mailsTo(t, unknown)).toEqual([]);
    expect(await mailsTo(t, verified.email)).toEqual([]);
  });

  it('counts a wrong password as a failed sign-in: the lockout holds, and a locked email gets nothing', async () => {
    const { email } = await signUpFor(t);
    // The resend's own per-email limit (3 in 15 minutes) is tighter than the lock: the last
    // failure before the threshold comes from the resend, the others from sign-in.
    for (let i = 0; i < t.config.lockoutThreshold - 1; i++) await postSignIn(t.app, { email, password: `wrong ${i}` });
    expect((await bySignIn(t, email, 'wrong again')).json()).toEqual({});
    expect((await getFailureCount(t.db, normalizeEmail(email)))?.lockedUntil).not.toBeNull();
    expect((await postSignIn(t.app, { email, password: PASSWORD })).json()).toEqual({ errorMessage: 'accountLocked' });
    expect((await bySignIn(t, email, PASSWORD)).json()).toEqual({});
    expect((await mailsTo(t, email)).length).toBe(1);
  });

  it('a right password is no failure', async () => {
    const { email } = await signUpFor(t);
    await bySignIn(t, email, 'one wrong guess');
    expect((await getFailureCount(t.db, normalizeEmail(email)))?.failures).toBe(1);
    await bySignIn(t, email, PASSWORD);
    expect((await getFailureCount(t.db, normalizeEmail(email)))?.failures).toBe(1);
  });

  it('for a pending sign-up of a verified account, sends the owner the sign-up notice, never a link into the account', async () => {
    const owner = await createTestUser(t);
    await postSignUp(t, signUpBody({ email: owner.email, hashPassword: sha256Hex('stranger password') }));
    expect((await postSignIn(t.app, { email: owner.email, password: 'stranger password' })).json()).toEqual({ errorMessage: 'unverifiedAccount' });
    await bySignIn(t, owner.email, 'stranger password');
    expect((await mailsTo(t, owner.email)).map((mail) => mail.kind)).toEqual(['signupAttempt', 'signupAttempt']);
  });

  it("shares 'Click to resend.''s per-email budget: 3 in 15 minutes, whichever asks", async () => {
    const { email, userId } = await signUpFor(t);
    await postJson(t, RESEND_URL, { email, userId }, { remoteAddress: '198.51.100.21' });
    await bySignIn(t, email, PASSWORD, '198.51.100.22');
    await bySignIn(t, email, PASSWORD, '198.51.100.23');
    const refused = await bySignIn(t, email, PASSWORD, '198.51.100.24');
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toEqual({ errorMessage: 'rateLimitExeeded' });
    expect((await mailsTo(t, email, 'verifyEmail')).length).toBe(4);
  });
});
