import { normalizeEmail } from '@foyer/contract';
import { describe, expect, it } from 'vitest';
import {
  RESEND_URL,
  SETUP_URL,
  VERIFY_URL,
  getFields,
  invitee,
  latestToken,
  postJson,
  postSignUp,
  signUpBody,
  signedUp,
} from '../../../test/account-entry.js';
import { CLI_META } from '../audit/audit.service.js';
import { HOUR, dbUnavailable, newDeviceId, sessionCookieName, setCookie, useTestApp, type TestApp } from '../../../test/helpers.js';
import { sha256Hex } from '../../lib/crypto.js';
import { unitOfWork } from '../../lib/unit-of-work.js';
import { createOrganization } from '../organizations/organizations.service.js';
import { findUserByEmailKey } from '../users/users.repo.js';
import { issueToken } from '../tokens/tokens.js';

/** What the database holds about a token: whether and why it ended. */
async function tokenState(t: TestApp, token: string) {
  return t.db.selectFrom('email_tokens').select(['used_at', 'ended_reason']).where('id', '=', sha256Hex(token)).executeTakeFirstOrThrow();
}

/** A sign-up through the API: its email, its sign-up id and its first link. */
async function signUpFor(t: TestApp) {
  const body = signUpBody();
  const response = await postSignUp(t, body);
  const userId = response.json<{ userId: string }>().userId;
  return { email: body.email, userId, token: await latestToken(t, body.email, 'verifyEmail') };
}

describe.skipIf(dbUnavailable)('the setup lookup names the account (decision 0020)', () => {
  const t = useTestApp();

  it("answers an invitation's organisation, and none for a sign-up's link", async () => {
    const { email, userId, token } = await invitee(t);
    const org = await createOrganization(t.deps, { name: `Acme ${Date.now()}`, ssoRequired: false }, CLI_META);
    await t.db.updateTable('users').set({ org_id: org.id }).where('id', '=', userId).execute();
    expect((await getFields(t, token)).json()).toEqual({
      fields: ['firstName', 'lastName', 'hashPassword', 'phoneNumber'],
      email,
      organization: org.name,
    });
    const signup = await signedUp(t);
    expect((await getFields(t, signup.token)).json()).toEqual({ fields: ['phoneNumber'], email: signup.email });
  });

  it('names the account as it was typed, whatever the letter case', async () => {
    const email = `Mixed.Case.${Date.now()}@Example.com`;
    const { token } = await signedUp(t, { email });
    expect((await getFields(t, token)).json<{ email: string }>().email).toBe(email);
  });
});

describe.skipIf(dbUnavailable)('verification links that ended (decision 0020)', () => {
  const t = useTestApp();

  it('records why each token ended: used, superseded, completed', async () => {
    const first = await signUpFor(t);
    t.clock.advance(1000);
    await postJson(t, RESEND_URL, { email: first.email, userId: first.userId });
    const second = await latestToken(t, first.email, 'verifyEmail');
    expect(await tokenState(t, first.token)).toEqual({ used_at: t.clock.now(), ended_reason: 'superseded' });
    // Another sign-up of the same email keeps its own link (decision 0014) until one is used.
    t.clock.advance(1000);
    await postSignUp(t, signUpBody({ email: first.email }));
    const user = await findUserByEmailKey(t.db, normalizeEmail(first.email));
    const open = await t.db
      .selectFrom('email_tokens')
      .select('id')
      .where('user_id', '=', user?.id ?? '')
      .where('used_at', 'is', null)
      .execute();
    expect(open.map((row) => row.id)).toContain(sha256Hex(second));
    expect(open).toHaveLength(2);
    expect((await postJson(t, SETUP_URL, { token: second, deviceId: newDeviceId() })).statusCode).toBe(200);
    expect((await tokenState(t, second)).ended_reason).toBe('used');
    const others = open.map((row) => row.id).filter((id) => id !== sha256Hex(second));
    const ended = await t.db.selectFrom('email_tokens').select('ended_reason').where('id', 'in', others).execute();
    expect(ended.map((row) => row.ended_reason)).toEqual(['completed']);
  });

  it('a used link answers alreadyVerified on the lookup, setupAccount and verifyEmail, spending and starting nothing', async () => {
    const { token } = await signedUp(t);
    expect((await postJson(t, SETUP_URL, { token, deviceId: newDeviceId() })).statusCode).toBe(200);
    const before = await tokenState(t, token);
    t.clock.advance(HOUR);
    for (const response of [
      await getFields(t, token),
      await postJson(t, SETUP_URL, { token, deviceId: newDeviceId() }),
      await postJson(t, VERIFY_URL, { token, deviceId: newDeviceId() }),
    ]) {
      expect(response.statusCode).toBe(409);
      expect(response.json()).toEqual({ errorMessage: 'alreadyVerified' });
      expect(setCookie(response, sessionCookieName(t.config))).toBeUndefined();
    }
    expect(await tokenState(t, token)).toEqual(before);
  });

  it('says alreadyVerified rather than tokenExpired once the account is verified', async () => {
    const first = await signUpFor(t);
    t.clock.advance(1000);
    await postJson(t, RESEND_URL, { email: first.email, userId: first.userId });
    const second = await latestToken(t, first.email, 'verifyEmail');
    expect((await postJson(t, SETUP_URL, { token: second, deviceId: newDeviceId() })).statusCode).toBe(200);
    t.clock.advance(48 * HOUR);
    expect((await getFields(t, first.token)).json()).toEqual({ errorMessage: 'alreadyVerified' });
    expect((await getFields(t, second)).json()).toEqual({ errorMessage: 'alreadyVerified' });
  });

  it('a superseded link answers linkSuperseded (410) while the account waits; the newer one still works', async () => {
    const first = await signUpFor(t);
    t.clock.advance(1000);
    await postJson(t, RESEND_URL, { email: first.email, userId: first.userId });
    const lookup = await getFields(t, first.token);
    expect(lookup.statusCode).toBe(410);
    expect(lookup.json()).toEqual({ errorMessage: 'linkSuperseded' });
    expect((await postJson(t, VERIFY_URL, { token: first.token, deviceId: newDeviceId() })).json()).toEqual({ errorMessage: 'linkSuperseded' });
    // Expired as well: still superseded, which says more.
    t.clock.advance(25 * HOUR);
    expect((await getFields(t, first.token)).json()).toEqual({ errorMessage: 'linkSuperseded' });
  });

  it('of two POSTs racing with one verification link, one signs in and the other answers alreadyVerified', async () => {
    const { token } = await signedUp(t);
    const post = () => postJson(t, SETUP_URL, { token, deviceId: newDeviceId() });
    const results = await Promise.all([post(), post()]);
    expect(results.map((response) => response.statusCode).sort()).toEqual([200, 409]);
    expect(results.find((response) => response.statusCode === 409)?.json()).toEqual({ errorMessage: 'alreadyVerified' });
  });

  it('keeps spec §8 codes for invitations: re-invited or used, the old link answers invalidToken', async () => {
    const { userId, token } = await invitee(t);
    const newer = await issueToken(unitOfWork(t), { userId, purpose: 'invitation' });
    expect((await tokenState(t, token)).ended_reason).toBe('superseded');
    expect((await getFields(t, token)).json()).toEqual({ errorMessage: 'invalidToken' });
    const body = { token: newer, deviceId: newDeviceId(), firstName: 'Ines', lastName: 'Ortiz', hashPassword: sha256Hex('a long enough passphrase') };
    expect((await postJson(t, SETUP_URL, body)).statusCode).toBe(200);
    expect((await getFields(t, newer)).json()).toEqual({ errorMessage: 'invalidToken' });
  });

  it('tells a deactivated account nothing: invalidToken', async () => {
    const { email, token } = await signedUp(t);
    await postJson(t, SETUP_URL, { token, deviceId: newDeviceId() });
    await t.db.updateTable('users').set({ deactivated_at: t.clock.now() }).where('email_key', '=', normalizeEmail(email)).execute();
    expect((await getFields(t, token)).json()).toEqual({ errorMessage: 'invalidToken' });
  });
});
