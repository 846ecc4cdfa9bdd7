import { normalizeEmail } from '@foyer/contract';
import { describe, expect, it } from 'vitest';
import { PASSWORD, RESEND_URL, SETUP_URL, latestToken, mailsTo, postJson, postSignUp, signUpBody } from '../../../test/account-entry.js';
import { createTestUser, dbUnavailable, newDeviceId, postSignIn, useTestApp } from '../../../test/helpers.js';
import { listAuditEvents } from '../audit/audit.repo.js';
import { limiterTime } from '../../../test/limiter-time.js';

describe.skipIf(dbUnavailable)('POST /api/account/resendVerification', () => {
  const t = useTestApp();

  async function signUp(email?: string) {
    const body = signUpBody(email === undefined ? {} : { email });
    const response = await postSignUp(t, body);
    return { email: body.email, userId: response.json<{ userId: string }>().userId };
  }

  it('sends a fresh link for the sign-up it names; the previous link stops working', async () => {
    const { email, userId } = await signUp();
    const first = await latestToken(t, email, 'verifyEmail');
    const response = await postJson(t, RESEND_URL, { email, userId });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({});
    const second = await latestToken(t, email, 'verifyEmail');
    expect(second).not.toBe(first);
    // Superseded, and told apart from a dead link (decision 0020).
    expect((await postJson(t, SETUP_URL, { token: first, deviceId: newDeviceId() })).json()).toEqual({ errorMessage: 'linkSuperseded' });
    expect((await postJson(t, SETUP_URL, { token: second, deviceId: newDeviceId() })).statusCode).toBe(200);
    expect((await listAuditEvents(t.db, { emailKey: normalizeEmail(email), type: 'verification.resent' })).length).toBe(1);
  });

  it('answers 200 and sends nothing for an unknown id or an id of another email', async () => {
    const { email, userId } = await signUp();
    const other = await signUp();
    for (const body of [
      { email, userId: 'A'.repeat(22) },
      { email: other.email, userId },
    ]) {
      const response = await postJson(t, RESEND_URL, body);
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({});
    }
    expect(await mailsTo(t, email)).toHaveLength(1);
    expect(await mailsTo(t, other.email)).toHaveLength(1);
  });

  it('for a known-email sign-up, sends the notice again (never a link into the account)', async () => {
    const owner = await createTestUser(t);
    const { userId } = await signUp(owner.email);
    await postJson(t, RESEND_URL, { email: owner.email, userId });
    expect((await mailsTo(t, owner.email)).map((mail) => mail.kind)).toEqual(['signupAttempt', 'signupAttempt']);
  });

  it('allows 3 resends per email in 15 minutes, then answers 429 rateLimitExeeded', async () => {
    const time = limiterTime(t);
    const { email, userId } = await signUp();
    for (let i = 0; i < 3; i++) expect((await postJson(t, RESEND_URL, { email, userId })).statusCode).toBe(200);
    // Per email, whatever the letter case and whichever address asks.
    const refused = await postJson(t, RESEND_URL, { email: email.toUpperCase(), userId }, { remoteAddress: '198.51.100.7' });
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toEqual({ errorMessage: 'rateLimitExeeded' });
    expect(await mailsTo(t, email)).toHaveLength(4);
    time.advance(15 * 60 * 1000);
    expect((await postJson(t, RESEND_URL, { email, userId })).statusCode).toBe(200);
  });

  it('allows 20 resends per address in an hour, whatever the emails', async () => {
    for (let i = 0; i < 20; i++) {
      expect((await postJson(t, RESEND_URL, { email: `n${i}@example.com`, userId: 'A'.repeat(22) })).statusCode).toBe(200);
    }
    expect((await postJson(t, RESEND_URL, { email: 'last@example.com', userId: 'A'.repeat(22) })).statusCode).toBe(429);
  });

  it('lets the new account sign in only after the link was used', async () => {
    const { email } = await signUp();
    expect((await postSignIn(t.app, { email, password: PASSWORD })).json()).toEqual({ errorMessage: 'unverifiedAccount' });
    const token = await latestToken(t, email, 'verifyEmail');
    expect((await postJson(t, SETUP_URL, { token, deviceId: newDeviceId() })).statusCode).toBe(200);
    expect((await postSignIn(t.app, { email, password: PASSWORD })).statusCode).toBe(200);
  });
});
