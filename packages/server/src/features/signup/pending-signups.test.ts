import { normalizeEmail } from '@foyer/contract';
import { describe, expect, it } from 'vitest';
import { SETUP_URL, getFields, invitee, mailsTo, postJson, postSignUp, signUpBody, tokenIn } from '../../../test/account-entry.js';
import { createTestUser, dbUnavailable, newDeviceId, postSignIn, useTestApp, type TestApp } from '../../../test/helpers.js';
import { postReset, requestResetToken } from '../../../test/password.js';
import { sha256Hex } from '../../lib/crypto.js';
import { findUserByEmailKey } from '../users/users.repo.js';
import { limiterTime } from '../../../test/limiter-time.js';

/** The verification token of every mail to an address, in the order the sign-ups were made. */
async function verificationTokens(t: TestApp, email: string): Promise<string[]> {
  return (await mailsTo(t, email, 'verifyEmail')).map((mail) => tokenIn(mail.text_body, 'verifyEmail'));
}

/** A sign-up as a person sends it, with a password in clear for the later sign-in. */
async function signUpWith(t: TestApp, email: string, password: string, names: { firstName: string; lastName: string }, remoteAddress?: string) {
  const response = await postSignUp(t, signUpBody({ email, hashPassword: sha256Hex(password), ...names }), {
    ...(remoteAddress === undefined ? {} : { remoteAddress }),
  });
  // Mails of one millisecond have no order: each sign-up gets its own moment.
  t.clock.advance(1000);
  return response;
}

describe.skipIf(dbUnavailable)('pending sign-ups (decision 0014)', () => {
  const t = useTestApp();

  it("closes account pre-hijacking: the victim's link activates the victim's password, never the attacker's", async () => {
    const email = `victim.${Date.now()}@example.com`;
    expect((await signUpWith(t, email, 'attacker password A', { firstName: 'Mallory', lastName: 'Evil' }, '203.0.113.66')).statusCode).toBe(200);
    expect((await signUpWith(t, email, 'victim password B', { firstName: 'Vera', lastName: 'Owner' })).statusCode).toBe(200);
    const [attackerLink, victimLink] = await verificationTokens(t, email);
    expect(attackerLink).toBeDefined();
    expect(victimLink).toBeDefined();

    // Neither password opens the account before a link is clicked.
    expect((await postSignIn(t.app, { email, password: 'attacker password A' })).json()).toEqual({ errorMessage: 'unverifiedAccount' });

    const verified = await postJson(t, SETUP_URL, { token: victimLink, deviceId: newDeviceId() });
    expect(verified.statusCode).toBe(200);
    expect(verified.json()).toHaveProperty('otter');

    const user = await findUserByEmailKey(t.db, normalizeEmail(email));
    expect(user).toMatchObject({ first_name: 'Vera', last_name: 'Owner' });
    expect(user?.email_verified_at).not.toBeNull();
    expect((await postSignIn(t.app, { email, password: 'victim password B' })).statusCode).toBe(200);
    expect((await postSignIn(t.app, { email, password: 'attacker password A' })).json()).toEqual({ errorMessage: 'invalidCredentials' });
    // The attacker's link died with the verification (it now says the email is verified and
    // activates nothing), and their credential is gone.
    expect((await postJson(t, SETUP_URL, { token: attackerLink, deviceId: newDeviceId() })).json()).toEqual({ errorMessage: 'alreadyVerified' });
    const pending = await t.db.selectFrom('signup_attempts').select('password_hash').where('email_key', '=', normalizeEmail(email)).execute();
    expect(pending.map((row) => row.password_hash)).toEqual([null, null]);
  });

  it('the setup fields of a sign-up link ask for nothing: the sign-up brought its password and names', async () => {
    const email = `fields.${Date.now()}@example.com`;
    await signUpWith(t, email, 'a fine long password', { firstName: 'Ann', lastName: 'Lee' });
    const [token] = await verificationTokens(t, email);
    const fields = await getFields(t, token ?? '');
    expect(fields.statusCode).toBe(200);
    expect(fields.json<{ fields: string[] }>().fields).not.toContain('hashPassword');
  });

  it('answers sign-up then sign-in with the same password alike, whether or not a verified account has the email', async () => {
    const owner = await createTestUser(t);
    const fresh = `fresh.${Date.now()}@example.com`;
    const password = 'probing password P';
    await signUpWith(t, owner.email, password, { firstName: 'Probe', lastName: 'One' });
    await signUpWith(t, fresh, password, { firstName: 'Probe', lastName: 'Two' });

    const known = await postSignIn(t.app, { email: owner.email, password });
    const unknown = await postSignIn(t.app, { email: fresh, password });
    expect(known.statusCode).toBe(403);
    expect(known.json()).toEqual({ errorMessage: 'unverifiedAccount' });
    expect(unknown.statusCode).toBe(known.statusCode);
    expect(unknown.json()).toEqual(known.json());
    // A wrong password is the generic failure on both.
    expect((await postSignIn(t.app, { email: owner.email, password: 'nope nope' })).json()).toEqual({ errorMessage: 'invalidCredentials' });
    expect((await postSignIn(t.app, { email: fresh, password: 'nope nope' })).json()).toEqual({ errorMessage: 'invalidCredentials' });
    // The owner's own password still signs in, and the pending one never becomes theirs.
    expect((await postSignIn(t.app, owner)).statusCode).toBe(200);
    expect((await findUserByEmailKey(t.db, normalizeEmail(owner.email)))?.password_hash).toBe(owner.user.password_hash);
  });

  it('drops pending credentials when the owner resets the password', async () => {
    const owner = await createTestUser(t);
    await signUpWith(t, owner.email, 'someone elses password', { firstName: 'X', lastName: 'Y' });
    expect((await postSignIn(t.app, { email: owner.email, password: 'someone elses password' })).json()).toEqual({
      errorMessage: 'unverifiedAccount',
    });
    const token = await requestResetToken(t, owner.email);
    expect((await postReset(t, token, 'the owner new password')).statusCode).toBe(200);
    expect((await postSignIn(t.app, { email: owner.email, password: 'someone elses password' })).json()).toEqual({
      errorMessage: 'invalidCredentials',
    });
  });

  it('limits sign-ups per email across addresses, known and unknown alike, and the notice mail per day', async () => {
    const owner = await createTestUser(t);
    const fresh = `limited.${Date.now()}@example.com`;
    const time = limiterTime(t);
    for (const email of [owner.email, fresh]) {
      const statuses: number[] = [];
      for (let i = 0; i < 7; i++)
        statuses.push((await signUpWith(t, email, `password number ${i}`, { firstName: 'A', lastName: 'B' }, `198.51.100.${i + 1}`)).statusCode);
      expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429]);
    }
    // Five sign-ups of a known email reached the service; its owner heard of three of them.
    expect(await mailsTo(t, owner.email, 'signupAttempt')).toHaveLength(3);

    // A new hour allows sign-ups again, but the day's notices are spent.
    time.advance(60 * 60 * 1000);
    expect((await signUpWith(t, owner.email, 'yet another one', { firstName: 'A', lastName: 'B' }, '198.51.100.99')).statusCode).toBe(200);
    expect(await mailsTo(t, owner.email, 'signupAttempt')).toHaveLength(3);
    time.advance(24 * 60 * 60 * 1000);
    expect((await signUpWith(t, owner.email, 'next day one', { firstName: 'A', lastName: 'B' }, '198.51.100.100')).statusCode).toBe(200);
    expect(await mailsTo(t, owner.email, 'signupAttempt')).toHaveLength(4);
  });

  it('keeps the notice cap when five sign-ups of a known email arrive at once', async () => {
    const owner = await createTestUser(t);
    const body = (i: number) => signUpBody({ email: owner.email, hashPassword: sha256Hex(`parallel password ${i}`), firstName: 'A', lastName: 'B' });
    const answers = await Promise.all([0, 1, 2, 3, 4].map((i) => postSignUp(t, body(i), { remoteAddress: `198.51.100.${150 + i}` })));
    expect(answers.map((answer) => answer.statusCode)).toEqual([200, 200, 200, 200, 200]);
    expect(await mailsTo(t, owner.email, 'signupAttempt')).toHaveLength(3);
  });
});

describe.skipIf(dbUnavailable)('the server-side password floor', () => {
  const t = useTestApp();

  it('refuses the digest of the empty password, of "a" and of common passwords at sign-up, writing nothing', async () => {
    for (const password of ['', 'a', 'password', '12345678', 'qwertyuiop', 'aaaaaaaaaa']) {
      const body = signUpBody({ hashPassword: sha256Hex(password) });
      const response = await postSignUp(t, body);
      expect(response.statusCode, password).toBe(400);
      expect(response.json()).toEqual({ errorMessage: 'commonPassword' });
      expect(await findUserByEmailKey(t.db, normalizeEmail(body.email))).toBeUndefined();
    }
    expect((await postSignUp(t, signUpBody({ hashPassword: sha256Hex('a sentence nobody has typed') }))).statusCode).toBe(200);
  });

  it('refuses a common password at reset, leaving the link usable', async () => {
    const account = await createTestUser(t);
    const token = await requestResetToken(t, account.email);
    const refused = await postReset(t, token, 'password1');
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toEqual({ errorMessage: 'commonPassword' });
    expect((await postReset(t, token, 'an uncommon new passphrase')).statusCode).toBe(200);
  });

  it('refuses a common password at account setup, leaving the link usable', async () => {
    const invited = await invitee(t);
    const body = { token: invited.token, deviceId: newDeviceId(), firstName: 'Ivy', lastName: 'Vee' };
    const refused = await postJson(t, SETUP_URL, { ...body, hashPassword: sha256Hex('iloveyou') });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toEqual({ errorMessage: 'commonPassword' });
    expect((await postJson(t, SETUP_URL, { ...body, hashPassword: sha256Hex('an uncommon new passphrase') })).statusCode).toBe(200);
  });
});
