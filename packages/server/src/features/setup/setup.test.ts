import { normalizeEmail } from '@foyer/contract';
import { describe, expect, it } from 'vitest';
import { PASSWORD, SETUP_URL, getFields, invitee, postJson, signedUp } from '../../../test/account-entry.js';
import {
  HOUR,
  createTestUser,
  dbUnavailable,
  getSession,
  newDeviceId,
  postSignIn,
  sessionCookieName,
  setCookie,
  signIn,
  useTestApp,
  type TestApp,
} from '../../../test/helpers.js';
import { sha256Hex } from '../../lib/crypto.js';
import { listAuditEvents } from '../audit/audit.repo.js';
import { findUserByEmailKey } from '../users/users.repo.js';
import { unitOfWork } from '../../lib/unit-of-work.js';
import { issueToken } from '../tokens/tokens.js';

const fields = (t: TestApp, token: string) => getFields(t, token);

describe.skipIf(dbUnavailable)('GET /api/account/setupAccount/fields/{id}', () => {
  const t = useTestApp();

  it('lists what a signed-up account lacks (only the optional phone)', async () => {
    const { email, token } = await signedUp(t);
    const response = await fields(t, token);
    expect(response.statusCode).toBe(200);
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.json()).toEqual({ fields: ['phoneNumber'], email });
    const withPhone = await signedUp(t, { phoneNumber: '+1 555 0100' });
    expect((await fields(t, withPhone.token)).json()).toEqual({ fields: [], email: withPhone.email });
  });

  it('lists every field for an invited account', async () => {
    const { email, token } = await invitee(t);
    expect((await fields(t, token)).json()).toEqual({ fields: ['firstName', 'lastName', 'hashPassword', 'phoneNumber'], email });
  });

  it('spends nothing, however often the link is opened', async () => {
    const { token } = await signedUp(t);
    for (let i = 0; i < 3; i++) expect((await fields(t, token)).statusCode).toBe(200);
    const row = await t.db.selectFrom('email_tokens').select('used_at').where('id', '=', sha256Hex(token)).executeTakeFirstOrThrow();
    expect(row.used_at).toBeNull();
    expect((await postJson(t, SETUP_URL, { token, deviceId: newDeviceId() })).statusCode).toBe(200);
  });

  it('answers invalidToken for an unknown or malformed token, tokenExpired after 24 hours', async () => {
    expect((await fields(t, 'A'.repeat(43))).json()).toEqual({ errorMessage: 'invalidToken' });
    expect((await fields(t, 'A'.repeat(43))).statusCode).toBe(400);
    expect((await fields(t, 'not*a*token')).statusCode).toBe(400);
    const { token } = await signedUp(t);
    t.clock.advance(24 * HOUR);
    const expired = await fields(t, token);
    expect(expired.statusCode).toBe(410);
    expect(expired.json()).toEqual({ errorMessage: 'tokenExpired' });
  });
});

describe.skipIf(dbUnavailable)('POST /api/account/setupAccount', () => {
  const t = useTestApp();

  it('verifies the email, spends the token, starts a session and answers the otter', async () => {
    const { email, token } = await signedUp(t);
    const deviceId = newDeviceId();
    const response = await postJson(t, SETUP_URL, { token, deviceId, utmSource: 'later' });
    expect(response.statusCode).toBe(200);
    const body = response.json<{ otter: string }>();
    expect(Object.keys(body)).toEqual(['otter']);
    expect(setCookie(response, sessionCookieName(t.config))).toMatchObject({ value: body.otter, httpOnly: true, sameSite: 'Strict' });
    expect((await getSession(t, body.otter, deviceId)).json()).toMatchObject({ user: { email, emailVerified: true } });

    const user = await findUserByEmailKey(t.db, normalizeEmail(email));
    expect(user?.email_verified_at).toBe(t.clock.now());
    const row = await t.db.selectFrom('email_tokens').select('used_at').where('id', '=', sha256Hex(token)).executeTakeFirstOrThrow();
    expect(row.used_at).toBe(t.clock.now());
    const attribution = await t.db
      .selectFrom('user_attribution')
      .selectAll()
      .where('user_id', '=', user?.id ?? '')
      .executeTakeFirstOrThrow();
    expect(attribution.utm_source).toBe('later');
    const types = (await listAuditEvents(t.db, { emailKey: normalizeEmail(email) })).map((event) => event.type);
    // Events of one millisecond have no order between them.
    expect(types.sort()).toEqual(['email.verified', 'setup.completed', 'signup']);
    expect((await postSignIn(t.app, { email, password: PASSWORD })).statusCode).toBe(200);
  });

  it('spends the token once: a verification link used again answers alreadyVerified (409, decision 0020)', async () => {
    const { token } = await signedUp(t);
    expect((await postJson(t, SETUP_URL, { token, deviceId: newDeviceId() })).statusCode).toBe(200);
    const again = await postJson(t, SETUP_URL, { token, deviceId: newDeviceId() });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toEqual({ errorMessage: 'alreadyVerified' });
    expect(setCookie(again, sessionCookieName(t.config))).toBeUndefined();
    expect((await fields(t, token)).json()).toEqual({ errorMessage: 'alreadyVerified' });
  });

  it('spends an invitation once: used again it answers invalidToken (spec §8)', async () => {
    const { token } = await invitee(t);
    const body = { token, deviceId: newDeviceId(), firstName: 'Grace', lastName: 'Hopper', hashPassword: sha256Hex('a new long passphrase') };
    expect((await postJson(t, SETUP_URL, body)).statusCode).toBe(200);
    const again = await postJson(t, SETUP_URL, { ...body, deviceId: newDeviceId() });
    expect(again.statusCode).toBe(400);
    expect(again.json()).toEqual({ errorMessage: 'invalidToken' });
    expect((await fields(t, token)).json()).toEqual({ errorMessage: 'invalidToken' });
  });

  it('lets only one of two simultaneous POSTs with one token through', async () => {
    const { email, token } = await invitee(t);
    const post = (name: string) =>
      postJson(t, SETUP_URL, { token, deviceId: newDeviceId(), firstName: name, lastName: 'Racer', hashPassword: sha256Hex(name) });
    const results = await Promise.all([post('First'), post('Second'), post('Third')]);
    expect(results.map((response) => response.statusCode).sort()).toEqual([200, 400, 400]);
    const winner = results.find((response) => response.statusCode === 200);
    const user = await findUserByEmailKey(t.db, normalizeEmail(email));
    expect(['First', 'Second', 'Third']).toContain(user?.first_name);
    expect((await postSignIn(t.app, { email, password: user?.first_name ?? '' })).statusCode).toBe(200);
    expect(winner?.json<{ otter: string }>().otter).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const sessions = await t.db
      .selectFrom('sessions')
      .select('id')
      .where('user_id', '=', user?.id ?? '')
      .execute();
    // One from setup, one from the sign-in just above.
    expect(sessions).toHaveLength(2);
  });

  it('answers tokenExpired once the link is older than its lifetime, and spends nothing', async () => {
    const { token } = await signedUp(t);
    t.clock.advance(24 * HOUR - 1);
    expect((await fields(t, token)).statusCode).toBe(200);
    t.clock.advance(1);
    const response = await postJson(t, SETUP_URL, { token, deviceId: newDeviceId() });
    expect(response.statusCode).toBe(410);
    expect(response.json()).toEqual({ errorMessage: 'tokenExpired' });

    const invited = await invitee(t);
    t.clock.advance(7 * 24 * HOUR - 1);
    expect((await fields(t, invited.token)).statusCode).toBe(200);
    t.clock.advance(1);
    expect((await fields(t, invited.token)).json()).toEqual({ errorMessage: 'tokenExpired' });
  });

  it('stores the missing fields of an invitee, who then signs in with that password', async () => {
    const { email, token } = await invitee(t);
    const response = await postJson(t, SETUP_URL, {
      token,
      deviceId: newDeviceId(),
      firstName: '  Grace ',
      lastName: 'Hopper',
      hashPassword: sha256Hex('a new long passphrase'),
      phoneNumber: ' +1 555 0199 ',
      initialIntent: 'organization',
    });
    expect(response.statusCode).toBe(200);
    const user = await findUserByEmailKey(t.db, normalizeEmail(email));
    expect(user).toMatchObject({ first_name: 'Grace', last_name: 'Hopper', phone_number: '+1 555 0199' });
    expect(user?.email_verified_at).not.toBeNull();
    expect((await postSignIn(t.app, { email, password: 'a new long passphrase' })).statusCode).toBe(200);
    const attribution = await t.db
      .selectFrom('user_attribution')
      .selectAll()
      .where('user_id', '=', user?.id ?? '')
      .executeTakeFirstOrThrow();
    expect(attribution.initial_intent).toBe('organization');
  });

  it('requires the missing required fields (invalidRequest) and spends nothing without them', async () => {
    const { token } = await invitee(t);
    const partial = await postJson(t, SETUP_URL, { token, deviceId: newDeviceId(), firstName: 'Grace', lastName: 'Hopper' });
    expect(partial.statusCode).toBe(400);
    expect(partial.json()).toEqual({ errorMessage: 'invalidRequest', fields: ['hashPassword'] });
    expect((await fields(t, token)).statusCode).toBe(200);
  });

  it('ignores fields the account already has: setup never replaces a password or a name', async () => {
    const { email, token } = await signedUp(t);
    const response = await postJson(t, SETUP_URL, {
      token,
      deviceId: newDeviceId(),
      firstName: 'Mallory',
      lastName: 'Intruder',
      hashPassword: sha256Hex('attacker password'),
      phoneNumber: '+1 555 0142',
    });
    expect(response.statusCode).toBe(200);
    const user = await findUserByEmailKey(t.db, normalizeEmail(email));
    expect(user).toMatchObject({ first_name: 'Ada', last_name: 'Lovelace', phone_number: '+1 555 0142' });
    expect((await postSignIn(t.app, { email, password: 'attacker password' })).statusCode).toBe(401);
    expect((await postSignIn(t.app, { email, password: PASSWORD })).statusCode).toBe(200);
  });

  it('answers the redirectTo stored at sign-up when it passed the allow-list, and none otherwise', async () => {
    const allowed = await signedUp(t, { redirectTo: `${t.config.serverUrls.marketing ?? ''}/welcome` });
    const answer = (await postJson(t, SETUP_URL, { token: allowed.token, deviceId: newDeviceId() })).json<{ redirectUrl?: string }>();
    expect(answer.redirectUrl).toBe('http://localhost:3000/welcome');

    const refused = await signedUp(t, { redirectTo: 'javascript:alert(1)' });
    const body = (await postJson(t, SETUP_URL, { token: refused.token, deviceId: newDeviceId() })).json<Record<string, string>>();
    expect(Object.keys(body)).toEqual(['otter']);
  });

  it('replaces the session this browser held before', async () => {
    const other = await createTestUser(t);
    const before = await signIn(t.app, other);
    const { token } = await signedUp(t);
    const response = await postJson(t, SETUP_URL, { token, deviceId: before.deviceId }, { cookies: { [sessionCookieName(t.config)]: before.otter } });
    expect(response.statusCode).toBe(200);
    expect((await getSession(t, before.otter, before.deviceId)).statusCode).toBe(401);
  });

  it('answers invalidToken for a deactivated account and for a token of another purpose', async () => {
    const { email, token } = await signedUp(t);
    await t.db.updateTable('users').set({ deactivated_at: t.clock.now() }).where('email_key', '=', normalizeEmail(email)).execute();
    expect((await postJson(t, SETUP_URL, { token, deviceId: newDeviceId() })).json()).toEqual({ errorMessage: 'invalidToken' });

    const account = await createTestUser(t, { verified: false });
    const reset = await issueToken(unitOfWork(t), { userId: account.user.id, purpose: 'passwordReset' });
    expect((await fields(t, reset)).json()).toEqual({ errorMessage: 'invalidToken' });
  });

  it('ends the account’s other setup links once one was used', async () => {
    const { email, token } = await signedUp(t);
    const user = await findUserByEmailKey(t.db, normalizeEmail(email));
    const invitation = await issueToken(unitOfWork(t), { userId: user?.id ?? '', purpose: 'invitation' });
    expect((await postJson(t, SETUP_URL, { token, deviceId: newDeviceId() })).statusCode).toBe(200);
    expect((await fields(t, invitation)).json()).toEqual({ errorMessage: 'invalidToken' });
  });
});
