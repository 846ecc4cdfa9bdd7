import { SIGNUP_SOURCES, normalizeEmail } from '@foyer/contract';
import { describe, expect, it } from 'vitest';
import { PASSWORD, VERIFY_URL, postJson, postSignUp, signUpBody, signedUp } from '../../../test/account-entry.js';
import { EXCHANGE_URL, googleRound, useGoogleTestApp, signInWithGoogle } from '../../../test/google.js';
import { CLI_META } from '../audit/audit.service.js';
import { listAuditEvents } from '../audit/audit.repo.js';
import {
  createTestUser,
  dbUnavailable,
  getSession,
  newDeviceId,
  postSignIn,
  refuseInserts,
  sessionCookieName,
  setCookie,
  uniqueEmail,
} from '../../../test/helpers.js';
import { createOrganization } from '../organizations/organizations.service.js';
import { findUserByEmailKey } from '../users/users.repo.js';
import { standInSubject } from './stand-in.js';

async function auditTypes(t: { db: Parameters<typeof listAuditEvents>[0] }, email: string): Promise<{ type: string; detail: string | null }[]> {
  return (await listAuditEvents(t.db, { emailKey: normalizeEmail(email) })).map(({ type, detail }) => ({ type, detail }));
}

describe.skipIf(dbUnavailable)('Google accounts (decision 0019), against a real OpenID provider', () => {
  const t = useGoogleTestApp();

  it('signs up a new email: a verified account with the Google names, source, attribution and plan, and a session', async () => {
    const email = uniqueEmail('new');
    const deviceId = newDeviceId();
    const response = await signInWithGoogle(
      t,
      { email, givenName: 'Grace', familyName: 'Hopper' },
      {
        deviceId,
        utmSource: 'newsletter',
        gclid: 'g-1',
        initialIntent: 'organization',
        signupSource: SIGNUP_SOURCES.google,
        lastTouchUrl: 'https://www.example.com/pricing?plan=team',
        marketingTestData: '{"variant":"b"}',
      },
    );
    expect(response.statusCode).toBe(200);
    const body = response.json<{ wasSignUp: boolean; otter: string; wasClient: boolean; transferToken?: string }>();
    expect(body).toMatchObject({ wasSignUp: true, wasClient: false });
    expect(body.transferToken).toBeUndefined();
    expect(setCookie(response, sessionCookieName(t.config))?.value).toBe(body.otter);
    expect((await getSession(t, body.otter, deviceId)).json()).toMatchObject({
      user: { email, firstName: 'Grace', lastName: 'Hopper', emailVerified: true },
    });

    const user = await findUserByEmailKey(t.db, normalizeEmail(email));
    expect(user).toMatchObject({ password_hash: null, first_name: 'Grace', last_name: 'Hopper' });
    expect(user?.email_verified_at).not.toBeNull();
    const identity = await t.db
      .selectFrom('external_identities')
      .selectAll()
      .where('user_id', '=', user?.id ?? '')
      .executeTakeFirst();
    expect(identity).toMatchObject({ issuer: t.provider.issuer, subject: standInSubject(email), email });
    const attribution = await t.db
      .selectFrom('user_attribution')
      .selectAll()
      .where('user_id', '=', user?.id ?? '')
      .executeTakeFirst();
    expect(attribution).toMatchObject({
      signup_source: 'auth/sign-up/google',
      utm_source: 'newsletter',
      gclid: 'g-1',
      initial_intent: 'organization',
      last_touch_url: 'https://www.example.com/pricing?plan=team',
      marketing_test_data: '{"variant":"b"}',
    });
    expect((await auditTypes(t, email)).map((event) => event.type)).toEqual(['google.signup']);
  });

  it('records auth/sign-up/google when the page names no source, and signs the same identity in again', async () => {
    const email = uniqueEmail('again');
    expect((await signInWithGoogle(t, { email })).json()).toMatchObject({ wasSignUp: true });
    const again = await signInWithGoogle(t, { email });
    expect(again.json()).toMatchObject({ wasSignUp: false });
    const user = await findUserByEmailKey(t.db, normalizeEmail(email));
    const attribution = await t.db
      .selectFrom('user_attribution')
      .select('signup_source')
      .where('user_id', '=', user?.id ?? '')
      .executeTakeFirst();
    expect(attribution?.signup_source).toBe(SIGNUP_SOURCES.google);
    // The manual clock stands still, so events of one test share a time: compared as a set.
    expect((await auditTypes(t, email)).map((event) => event.type).sort()).toEqual(['google.signin', 'google.signup']);
  });

  it('links an existing verified account when the provider asserts email_verified; its password keeps working', async () => {
    const account = await createTestUser(t);
    const response = await signInWithGoogle(t, { email: account.email.toUpperCase() });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ wasSignUp: false });
    const identities = await t.db.selectFrom('external_identities').selectAll().where('user_id', '=', account.user.id).execute();
    expect(identities).toHaveLength(1);
    expect((await postSignIn(t.app, account)).statusCode).toBe(200);
    const linked = (await auditTypes(t, account.email)).find((event) => event.type === 'google.linked');
    expect(JSON.parse(linked?.detail ?? '{}')).toMatchObject({ takeover: false });
  });

  it('refuses an email the provider does not say is verified: no link to an account, and no new account', async () => {
    const account = await createTestUser(t);
    const refused = await signInWithGoogle(t, { email: account.email, verified: false });
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toEqual({ errorMessage: 'emailNotVerified' });
    expect(setCookie(refused, sessionCookieName(t.config))).toBeUndefined();
    expect(await t.db.selectFrom('external_identities').selectAll().where('user_id', '=', account.user.id).execute()).toEqual([]);

    const stranger = uniqueEmail('unverified');
    expect((await signInWithGoogle(t, { email: stranger, verified: false })).json()).toEqual({ errorMessage: 'emailNotVerified' });
    expect(await findUserByEmailKey(t.db, normalizeEmail(stranger))).toBeUndefined();
    const refusal = (await auditTypes(t, account.email)).find((event) => event.type === 'google.refused');
    expect(JSON.parse(refusal?.detail ?? '{}')).toMatchObject({ reason: 'emailNotVerified' });
  });

  it("pre-hijack: a stranger's sign-up with the owner's email loses to the Google owner, and the stranger's password never works", async () => {
    // The stranger signs up first with the victim's email and a password of their own.
    const { email, token } = await signedUp(t, { firstName: 'Mallory', lastName: 'Stranger' });
    const owner = await signInWithGoogle(t, { email, givenName: 'Victoria', familyName: 'Owner' });
    expect(owner.statusCode).toBe(200);
    expect(owner.json()).toMatchObject({ wasSignUp: false });

    const user = await findUserByEmailKey(t.db, normalizeEmail(email));
    expect(user).toMatchObject({ password_hash: null, first_name: 'Victoria', last_name: 'Owner', phone_number: null });
    expect(user?.email_verified_at).not.toBeNull();
    // The stranger's verification link is dead (it says the email is verified, decision 0020, and
    // activates nothing) and their password opens nothing, not even the unverifiedAccount answer
    // of a pending sign-up.
    const dead = await postJson(t, VERIFY_URL, { token, deviceId: newDeviceId() });
    expect(dead.json()).toEqual({ errorMessage: 'alreadyVerified' });
    expect(setCookie(dead, sessionCookieName(t.config))).toBeUndefined();
    const stranger = await postSignIn(t.app, { email, password: PASSWORD });
    expect(stranger.statusCode).toBe(401);
    expect(stranger.json()).toEqual({ errorMessage: 'invalidCredentials' });
    // A later sign-up by the stranger opens nothing either (decision 0014: a pending sign-up's
    // password only ever hears unverifiedAccount, and its link cannot verify a verified account).
    expect((await postSignUp(t, signUpBody({ email }))).statusCode).toBe(200);
    expect((await postSignIn(t.app, { email, password: PASSWORD })).statusCode).not.toBe(200);
    const linked = (await auditTypes(t, email)).find((event) => event.type === 'google.linked');
    expect(JSON.parse(linked?.detail ?? '{}')).toMatchObject({ takeover: true });
  });

  it('refuses an email whose domain an organisation claimed with SSO required (ssoRequired)', async () => {
    const domain = `sso-${Date.now().toString(36)}.example`;
    await createOrganization(t.deps, { name: `Org ${domain}`, domain, ssoRequired: true }, CLI_META);
    const email = `Ann@${domain}`;
    const refused = await signInWithGoogle(t, { email });
    expect(refused.statusCode).toBe(409);
    // The address Google vouched for goes along, for the page's SSO sign-in link (decision 0022).
    expect(refused.json()).toEqual({ errorMessage: 'ssoRequired', email });
    expect(await findUserByEmailKey(t.db, normalizeEmail(email))).toBeUndefined();
    expect((await auditTypes(t, email)).map((event) => event.type)).toEqual(['google.refused']);
  });

  it("refuses a linked identity whose account has moved to an address of a domain that requires SSO, though Google's email is elsewhere", async () => {
    const email = uniqueEmail('moved');
    expect((await signInWithGoogle(t, { email })).statusCode).toBe(200);
    const domain = `sso-moved-${Date.now().toString(36)}.example`;
    const moved = `Ann@${domain}`;
    await t.db
      .updateTable('users')
      .set({ email: moved, email_key: normalizeEmail(moved) })
      .where('email_key', '=', normalizeEmail(email))
      .execute();
    await createOrganization(t.deps, { name: `Org ${domain}`, domain, ssoRequired: true }, CLI_META);
    for (const extra of [{}, { useTransferToken: true }]) {
      const refused = await signInWithGoogle(t, { email }, extra);
      expect(refused.statusCode).toBe(409);
      // The account's own address, the one its company's SSO knows, for the page's link.
      expect(refused.json()).toEqual({ errorMessage: 'ssoRequired', email: moved });
    }
    expect((await auditTypes(t, email)).map((event) => event.type).sort()).toEqual(['google.refused', 'google.refused', 'google.signup']);
  });

  it('refuses a deactivated account, whether found by email or by its linked identity (deactivatedAccount)', async () => {
    const byEmail = await createTestUser(t, { deactivated: true });
    const refused = await signInWithGoogle(t, { email: byEmail.email });
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toEqual({ errorMessage: 'deactivatedAccount' });

    const email = uniqueEmail('linked');
    expect((await signInWithGoogle(t, { email })).statusCode).toBe(200);
    await t.db.updateTable('users').set({ deactivated_at: t.clock.now() }).where('email_key', '=', normalizeEmail(email)).execute();
    expect((await signInWithGoogle(t, { email })).json()).toEqual({ errorMessage: 'deactivatedAccount' });
    expect((await auditTypes(t, email)).map((event) => event.type).sort()).toEqual(['google.refused', 'google.signup']);
  });

  /** The callback as the web app sends it, from a browser that holds the session `otter`. */
  const exchangeFrom = async (email: string, otter: string, deviceId: string) => {
    const round = await googleRound(t, { email });
    return postJson(
      t,
      EXCHANGE_URL,
      { authorizationCode: round.code, state: round.state, deviceId },
      { cookies: { [sessionCookieName(t.config)]: otter } },
    );
  };

  it('replaces the session the browser held with the new one', async () => {
    const email = uniqueEmail('replace');
    const deviceId = newDeviceId();
    const first = (await signInWithGoogle(t, { email }, { deviceId })).json<{ otter: string }>().otter;
    const again = await exchangeFrom(email, first, deviceId);
    expect(again.statusCode).toBe(200);
    const second = again.json<{ otter: string }>().otter;
    expect(second).not.toBe(first);
    expect((await getSession(t, first, deviceId)).statusCode).toBe(401);
    expect((await getSession(t, second, deviceId)).statusCode).toBe(200);
  });

  it('keeps nothing of a sign-in whose new session cannot be written: the old session, the identity and the audit log as they were', async () => {
    const email = uniqueEmail('fault');
    const deviceId = newDeviceId();
    const first = (await signInWithGoogle(t, { email }, { deviceId })).json<{ otter: string }>().otter;
    const identity = () => t.db.selectFrom('external_identities').select(['last_used_at', 'email']).where('email', '=', email).executeTakeFirstOrThrow();
    await t.db.updateTable('external_identities').set({ last_used_at: 1 }).where('email', '=', email).execute();
    const refused = newDeviceId();
    // A fault in the sign-in's last write, for this device only.
    const restore = await refuseInserts(t.db, 'sessions', `new.device_id = '${refused}'`);
    try {
      const failed = await exchangeFrom(email, first, refused);
      expect(failed.statusCode).toBe(500);
      expect(setCookie(failed, sessionCookieName(t.config))).toBeUndefined();
      expect((await getSession(t, first, deviceId)).statusCode).toBe(200);
      expect((await identity()).last_used_at).toBe(1);
      expect((await auditTypes(t, email)).map((event) => event.type)).toEqual(['google.signup']);
    } finally {
      await restore();
    }
  });
});
