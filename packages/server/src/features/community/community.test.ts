import { API_BASE, CALLS } from '@foyer/contract';
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../lib/crypto.js';
import { postJson } from '../../../test/account-entry.js';
import {
  DISCOURSE_SSO_URL,
  EXCHANGE_OTTER_URL,
  FORUM_ENV,
  FORUM_RETURN,
  TERMS_AGREED_URL,
  forumAnswer,
  forumRequest,
  postWithToken,
} from '../../../test/community.js';
import { randomAddress } from '../../../test/password.js';
import { DISCOURSE_SSO_PER_IP } from './community.limits.js';
import { createTestUser, dbUnavailable, newDeviceId, signIn, testConfig, useTestApp, type TestApp } from '../../../test/helpers.js';

async function signedInMember(t: TestApp, options: { verified?: boolean; agreed?: boolean } = {}) {
  const member = await createTestUser(t, { verified: true });
  const { otter, deviceId } = await signIn(t.app, member);
  if (options.verified === false) await t.db.updateTable('users').set({ email_verified_at: null }).where('id', '=', member.user.id).execute();
  if (options.agreed !== false) expect((await postWithToken(t, TERMS_AGREED_URL, {}, otter, deviceId)).statusCode).toBe(200);
  return { ...member, otter, deviceId };
}

/** The audit rows of an account's forum sign-ins. */
function forumSignIns(t: TestApp, userId: string) {
  return t.db.selectFrom('audit_events').select('email_key').where('user_id', '=', userId).where('type', '=', 'community.signin').execute();
}

describe.skipIf(dbUnavailable)('community/discourseSso (decision 0021)', () => {
  const t = useTestApp({ env: FORUM_ENV });

  it('answers a signed request with a signed payload for the account, never roles or groups', async () => {
    const member = await signedInMember(t);
    const request = forumRequest();
    const response = await postWithToken(t, DISCOURSE_SSO_URL, request, member.otter, member.deviceId);
    expect(response.statusCode).toBe(200);
    const body = response.json<{ termsAgreed: boolean; redirectUrl: string }>();
    expect(body.termsAgreed).toBe(true);
    const { returnTo, fields } = forumAnswer(body.redirectUrl);
    expect(returnTo).toBe(FORUM_RETURN);
    expect(Object.fromEntries(fields)).toEqual({
      nonce: request.nonce,
      name: 'Ada Lovelace',
      username: 'AdaLovelace',
      email: member.email,
      external_id: member.user.id,
      require_activation: 'false',
    });
    for (const key of ['admin', 'moderator', 'add_groups', 'remove_groups', 'groups']) expect(fields.has(key)).toBe(false);
    expect(await forumSignIns(t, member.user.id)).toHaveLength(1);
  });

  it('answers a nonce once', async () => {
    const member = await signedInMember(t);
    const request = forumRequest();
    expect((await postWithToken(t, DISCOURSE_SSO_URL, request, member.otter, member.deviceId)).statusCode).toBe(200);
    const again = await postWithToken(t, DISCOURSE_SSO_URL, request, member.otter, member.deviceId);
    expect(again.statusCode).toBe(400);
    expect(again.json()).toEqual({ errorMessage: 'invalidSsoPayload' });
    const racing = forumRequest();
    const answers = await Promise.all([0, 1, 2].map(() => postWithToken(t, DISCOURSE_SSO_URL, racing, member.otter, member.deviceId)));
    expect(answers.map((answer) => answer.statusCode).sort()).toEqual([200, 400, 400]);
    // One audit row per answer given, none for a replay: the claim and its row are written together.
    expect(await forumSignIns(t, member.user.id)).toHaveLength(2);
    const refused = await t.db
      .selectFrom('audit_events')
      .select('detail')
      .where('user_id', '=', member.user.id)
      .where('type', '=', 'community.refused')
      .execute();
    expect(refused.map((row) => row.detail)).toEqual(Array.from({ length: 3 }, () => JSON.stringify({ reason: 'nonceReplayed' })));
  });

  it('forgets expired nonces at most once a minute, and answers a nonce again only once its row is gone', async () => {
    const member = await signedInMember(t);
    const nonceRow = (nonce: string) => ({ id: sha256Hex(nonce), user_id: member.user.id, answered_at: 0, expires_at: t.clock.now() - 1 });
    const nonceRows = async (nonces: string[]) =>
      (
        await t.db
          .selectFrom('discourse_nonces')
          .select('id')
          .where(
            'id',
            'in',
            nonces.map((nonce) => sha256Hex(nonce)),
          )
          .execute()
      ).length;
    // Past any sweep an earlier test made.
    t.clock.advance(61_000);

    const expired = forumRequest();
    await t.db.insertInto('discourse_nonces').values(nonceRow(expired.nonce)).execute();
    expect((await postWithToken(t, DISCOURSE_SSO_URL, forumRequest(), member.otter, member.deviceId)).statusCode).toBe(200);
    expect(await nonceRows([expired.nonce])).toBe(0);

    // Within the minute an expired row stays, and its nonce is still refused.
    const lingering = forumRequest();
    await t.db.insertInto('discourse_nonces').values(nonceRow(lingering.nonce)).execute();
    t.clock.advance(59_000);
    expect((await postWithToken(t, DISCOURSE_SSO_URL, lingering, member.otter, member.deviceId)).statusCode).toBe(400);
    expect(await nonceRows([lingering.nonce])).toBe(1);

    t.clock.advance(2_000);
    const answered = await postWithToken(t, DISCOURSE_SSO_URL, lingering, member.otter, member.deviceId);
    expect(answered.statusCode).toBe(200);
    expect(answered.json<{ termsAgreed: boolean }>().termsAgreed).toBe(true);
    // The audit row of a forum sign-in names the account's email key, read with the session.
    expect((await forumSignIns(t, member.user.id)).map((row) => row.email_key)).toEqual([member.email.toLowerCase(), member.email.toLowerCase()]);
  });

  it('refuses a tampered payload, a wrong secret, foreign characters and a foreign return_sso_url', async () => {
    const member = await signedInMember(t);
    const good = forumRequest();
    const tampered = { ...good, ssoPayload: Buffer.from(`nonce=${good.nonce}&return_sso_url=https%3A%2F%2Fevil.example%2F`).toString('base64') };
    const wrongSecret = forumRequest({ secret: 'not-the-forum-secret' });
    const foreignCharacters = { ...good, ssoPayload: `${good.ssoPayload}%` };
    const foreignReturn = forumRequest({ returnSsoUrl: 'https://forum.example.com.evil.example/session/sso_login' });
    const otherScheme = forumRequest({ returnSsoUrl: 'http://forum.example.com/session/sso_login' });
    // The forum's origin as a browser would repair them, which the allow-list refuses as written.
    const repaired = [
      'https://forum.example.com\\@evil.example/',
      ' https://forum.example.com/',
      'https://forum.example.com/\r\nX: y',
      'https://forum.example.com/\t/evil',
    ].map((returnSsoUrl) => forumRequest({ returnSsoUrl }));
    for (const request of [tampered, wrongSecret, foreignCharacters, foreignReturn, otherScheme, ...repaired]) {
      const response = await postWithToken(t, DISCOURSE_SSO_URL, request, member.otter, member.deviceId);
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual({ errorMessage: 'invalidSsoPayload' });
    }
    // Checked before the session: a forged request is refused for a signed-out browser too.
    expect((await postJson(t, DISCOURSE_SSO_URL, wrongSecret)).json()).toEqual({ errorMessage: 'invalidSsoPayload' });
  });

  it('answers 401 without a session, and for a deactivated account', async () => {
    expect((await postJson(t, DISCOURSE_SSO_URL, forumRequest())).statusCode).toBe(401);
    const member = await signedInMember(t);
    await t.db.updateTable('users').set({ deactivated_at: t.clock.now() }).where('id', '=', member.user.id).execute();
    const response = await postWithToken(t, DISCOURSE_SSO_URL, forumRequest(), member.otter, member.deviceId);
    expect(response.statusCode).toBe(401);
    expect(response.json()).toEqual({ errorMessage: 'notSignedIn' });
    // The session is bound to its device: the token from another device does not count.
    const other = await signedInMember(t);
    expect((await postWithToken(t, DISCOURSE_SSO_URL, forumRequest(), other.otter, newDeviceId())).statusCode).toBe(401);
  });

  it('never asserts an unverified address as verified', async () => {
    const member = await signedInMember(t, { verified: false });
    const response = await postWithToken(t, DISCOURSE_SSO_URL, forumRequest(), member.otter, member.deviceId);
    const { fields } = forumAnswer(response.json<{ redirectUrl: string }>().redirectUrl);
    expect(fields.get('require_activation')).toBe('true');
  });

  it('answers termsAgreed false without an address until the terms are accepted, and keeps the nonce for then', async () => {
    const member = await signedInMember(t, { agreed: false });
    const request = forumRequest();
    const first = await postWithToken(t, DISCOURSE_SSO_URL, request, member.otter, member.deviceId);
    expect(first.json()).toEqual({ termsAgreed: false, redirectUrl: '' });

    const agreed = await postWithToken(t, TERMS_AGREED_URL, {}, member.otter, member.deviceId);
    expect(agreed.statusCode).toBe(200);
    const audit = await t.db
      .selectFrom('audit_events')
      .selectAll()
      .where('user_id', '=', member.user.id)
      .where('type', '=', 'community.termsAgreed')
      .executeTakeFirstOrThrow();
    expect(audit.at).toBe(t.clock.now());
    expect(JSON.parse(audit.detail ?? '{}')).toEqual({ termsVersion: '1' });

    const second = await postWithToken(t, DISCOURSE_SSO_URL, request, member.otter, member.deviceId);
    expect(second.json<{ termsAgreed: boolean }>().termsAgreed).toBe(true);
  });

  it('asks again when the terms version changes', async () => {
    const member = await signedInMember(t);
    t.config.communityTermsVersion = '2';
    const response = await postWithToken(t, DISCOURSE_SSO_URL, forumRequest(), member.otter, member.deviceId);
    expect(response.json()).toEqual({ termsAgreed: false, redirectUrl: '' });
  });

  it('takes a device token as the credential (spec §4, decision 0030); a revoked one spends no nonce', async () => {
    const member = await signedInMember(t, { agreed: false });
    const exchanged = await postJson(t, EXCHANGE_OTTER_URL, { otterToken: member.otter, deviceId: member.deviceId });
    const { deviceToken } = exchanged.json<{ deviceToken: string }>();
    // Terms and forum sign-in with the device token alone: no cookie goes with postWithToken.
    const request = forumRequest();
    expect((await postWithToken(t, DISCOURSE_SSO_URL, request, deviceToken, member.deviceId)).json()).toEqual({ termsAgreed: false, redirectUrl: '' });
    expect((await postWithToken(t, TERMS_AGREED_URL, {}, deviceToken, member.deviceId)).statusCode).toBe(200);
    const answer = await postWithToken(t, DISCOURSE_SSO_URL, request, deviceToken, member.deviceId);
    expect(answer.statusCode).toBe(200);
    expect(forumAnswer(answer.json<{ redirectUrl: string }>().redirectUrl).fields.get('email')).toBe(member.email);

    // Signed out with the device token: it answers 401, and the same request still goes through
    // with another credential of the account (the page falls back to the browser's session).
    expect((await postWithToken(t, API_BASE + CALLS.signout.path, {}, deviceToken, member.deviceId)).statusCode).toBe(200);
    const next = forumRequest();
    const revoked = await postWithToken(t, DISCOURSE_SSO_URL, next, deviceToken, member.deviceId);
    expect(revoked.statusCode).toBe(401);
    expect(revoked.json()).toEqual({ errorMessage: 'notSignedIn' });
    const session = await signIn(t.app, member);
    expect((await postWithToken(t, DISCOURSE_SSO_URL, next, session.otter, session.deviceId)).statusCode).toBe(200);
  });

  it('refuses termsAgreed without a session', async () => {
    expect((await postJson(t, TERMS_AGREED_URL, {})).json()).toEqual({ errorMessage: 'notSignedIn' });
  });

  it(`allows ${DISCOURSE_SSO_PER_IP.limit} calls per client address in 15 minutes, then 429 before the payload is checked or audited`, async () => {
    const attacker = randomAddress();
    const refusalRows = async () => (await t.db.selectFrom('audit_events').select('id').where('type', '=', 'community.refused').execute()).length;
    const forged = (remoteAddress: string) => postJson(t, DISCOURSE_SSO_URL, forumRequest({ secret: 'not-the-forum-secret' }), { remoteAddress });
    const before = await refusalRows();
    for (let i = 0; i < DISCOURSE_SSO_PER_IP.limit; i++) expect((await forged(attacker)).json()).toEqual({ errorMessage: 'invalidSsoPayload' });
    expect(await refusalRows()).toBe(before + DISCOURSE_SSO_PER_IP.limit);

    const refused = await forged(attacker);
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toEqual({ errorMessage: 'rateLimitExeeded' });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(14 * 60);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(15 * 60);
    expect(await refusalRows()).toBe(before + DISCOURSE_SSO_PER_IP.limit);
    // A member elsewhere still signs in to the forum.
    const member = await signedInMember(t);
    expect((await postWithToken(t, DISCOURSE_SSO_URL, forumRequest(), member.otter, member.deviceId)).statusCode).toBe(200);
  });
});

describe.skipIf(dbUnavailable)('community calls while forum sign-in is not configured', () => {
  const t = useTestApp();

  it('answers notFound', async () => {
    const member = await createTestUser(t);
    const { otter, deviceId } = await signIn(t.app, member);
    expect((await postWithToken(t, DISCOURSE_SSO_URL, forumRequest(), otter, deviceId)).json()).toEqual({ errorMessage: 'notFound' });
    expect((await postWithToken(t, TERMS_AGREED_URL, {}, otter, deviceId)).json()).toEqual({ errorMessage: 'notFound' });
    // Signed out too: not configured is the answer whoever asks.
    expect((await postJson(t, DISCOURSE_SSO_URL, forumRequest())).json()).toEqual({ errorMessage: 'notFound' });
    expect((await postJson(t, TERMS_AGREED_URL, {})).json()).toEqual({ errorMessage: 'notFound' });
  });
});

describe('forum sign-in configuration', () => {
  it('takes the secret and terms version from the environment, and names a bad one', () => {
    const config = testConfig({ ...FORUM_ENV, COMMUNITY_TERMS_VERSION: '2025-01' });
    expect(config.discourseConnectSecret).toBe(FORUM_ENV.DISCOURSE_CONNECT_SECRET);
    expect(config.communityTermsVersion).toBe('2025-01');
    expect(() => testConfig({ DISCOURSE_CONNECT_SECRET: 'short' })).toThrow(/DISCOURSE_CONNECT_SECRET: must be at least 10 characters/);
    expect(() => testConfig({ COMMUNITY_TERMS_VERSION: 'a b' })).toThrow(/COMMUNITY_TERMS_VERSION/);
  });
});
