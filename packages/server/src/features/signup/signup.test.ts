import { SIGNUP_SOURCES, normalizeEmail } from '@foyer/contract';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { SETUP_URL, latestToken, mailsTo, postJson, postSignUp, signUpBody, tokenIn } from '../../../test/account-entry.js';
import { createTestUser, dbUnavailable, newDeviceId, postSignIn, useTestApp } from '../../../test/helpers.js';
import { listAuditEvents } from '../audit/audit.repo.js';
import { findUserByEmailKey } from '../users/users.repo.js';
import { limiterTime } from '../../../test/limiter-time.js';

describe.skipIf(dbUnavailable)('POST /api/account/signup', () => {
  const t = useTestApp();

  it('creates an unverified account, stores attribution, queues the verification mail, answers an opaque id', async () => {
    const body = signUpBody({
      email: '  Ann.Lee@Example.com ',
      firstName: '  Ann ',
      lastName: ' Lee',
      phoneNumber: ' +44 20 7946 0000 ',
      utmSource: 'newsletter',
      utmMedium: 'email',
      utmCampaign: 'spring',
      utmTerm: 'snippets',
      gclid: 'gclid-1',
      gaId: 'GA1.2.3',
      initialIntent: 'organization',
      hubspotToken: 'hub-1',
      redirectTo: '/home?welcome=1',
    });
    const response = await postSignUp(t, body);
    expect(response.statusCode).toBe(200);
    const answer = response.json<{ userId: string }>();
    expect(Object.keys(answer)).toEqual(['userId']);
    expect(answer.userId).toMatch(/^[A-Za-z0-9_-]{22}$/);

    const user = await findUserByEmailKey(t.db, 'ann.lee@example.com');
    expect(user).toMatchObject({ email: 'Ann.Lee@Example.com', first_name: 'Ann', last_name: 'Lee', phone_number: '+44 20 7946 0000' });
    expect(user?.email_verified_at).toBeNull();
    // Decision 0014: the password waits with the sign-up until its link is clicked.
    expect(user?.password_hash).toBeNull();
    // The answer is not the account id: it cannot be told apart from a known-email answer.
    expect(answer.userId).not.toBe(user?.id);

    const attribution = await t.db
      .selectFrom('user_attribution')
      .selectAll()
      .where('user_id', '=', user?.id ?? '')
      .executeTakeFirstOrThrow();
    expect(attribution).toMatchObject({
      signup_source: SIGNUP_SOURCES.email,
      utm_source: 'newsletter',
      utm_medium: 'email',
      utm_campaign: 'spring',
      utm_term: 'snippets',
      gclid: 'gclid-1',
      ga_id: 'GA1.2.3',
      initial_intent: 'organization',
      hubspot_token: 'hub-1',
      redirect_to: '/home?welcome=1',
    });
    const attempt = await t.db.selectFrom('signup_attempts').selectAll().where('id', '=', answer.userId).executeTakeFirstOrThrow();
    expect(attempt).toMatchObject({ email_key: 'ann.lee@example.com', user_id: user?.id, first_name: 'Ann', last_name: 'Lee', mailed: 'verification' });
    expect(attempt.password_hash).toMatch(/^\$argon2id\$/);

    const mails = await mailsTo(t, 'Ann.Lee@Example.com');
    expect(mails.map((mail) => mail.kind)).toEqual(['verifyEmail']);
    expect(mails[0]?.locale).toBe('en');
    expect(mails[0]?.text_body).toContain(`${t.config.publicUrl}/verify-email/`);
    const token = await latestToken(t, 'Ann.Lee@Example.com', 'verifyEmail');
    const stored = await t.db
      .selectFrom('email_tokens')
      .selectAll()
      .where('user_id', '=', user?.id ?? '')
      .execute();
    expect(stored).toHaveLength(1);
    // Only the SHA-256 is stored, with 24 hours to live.
    expect(stored[0]?.id).not.toContain(token);
    expect(stored[0]).toMatchObject({ purpose: 'verifyEmail', used_at: null, expires_at: t.clock.now() + 24 * 60 * 60 * 1000 });

    expect((await listAuditEvents(t.db, { emailKey: 'ann.lee@example.com' })).map((event) => event.type)).toEqual(['signup']);
  });

  it('keeps the given sign-up source and drops a redirectTo the allow-list refuses', async () => {
    const body = signUpBody({ signupSource: SIGNUP_SOURCES.community, redirectTo: 'https://evil.example/phish' });
    expect((await postSignUp(t, body)).statusCode).toBe(200);
    const user = await findUserByEmailKey(t.db, normalizeEmail(body.email));
    const attribution = await t.db
      .selectFrom('user_attribution')
      .selectAll()
      .where('user_id', '=', user?.id ?? '')
      .executeTakeFirstOrThrow();
    expect(attribution.signup_source).toBe(SIGNUP_SOURCES.community);
    expect(attribution.redirect_to).toBeNull();
  });

  it('writes the mail in the language of Accept-Language, English when none is supported', async () => {
    const german = signUpBody();
    await postSignUp(t, german, { headers: { 'accept-language': 'de-CH,de;q=0.9,en;q=0.5' } });
    expect((await mailsTo(t, german.email))[0]?.locale).toBe('de');
    expect((await findUserByEmailKey(t.db, german.email))?.locale).toBe('de');

    const other = signUpBody();
    await postSignUp(t, other, { headers: { 'accept-language': 'ja-JP,ja' } });
    expect((await mailsTo(t, other.email))[0]?.locale).toBe('en');

    // A known account with no language of its own (made by the CLI) hears in the visitor's, as
    // forgot-password's mail does; one with its own language keeps it.
    const unset = await createTestUser(t);
    expect(unset.user.locale).toBeNull();
    await postSignUp(t, signUpBody({ email: unset.email }), { headers: { 'accept-language': 'fr-FR,fr' } });
    expect((await mailsTo(t, unset.email, 'signupAttempt'))[0]?.locale).toBe('fr');
    await postSignUp(t, signUpBody({ email: german.email }), { headers: { 'accept-language': 'es' } });
    expect((await mailsTo(t, german.email)).map((mail) => mail.locale)).toEqual(['de', 'de']);
  });

  it('answers a known email exactly like a new one, creates nothing, and mails the owner instead', async () => {
    const owner = await createTestUser(t);
    const usersBefore = await t.db
      .selectFrom('users')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();

    const known = await postSignUp(t, signUpBody({ email: owner.email.toUpperCase(), firstName: 'Eve' }));
    const fresh = await postSignUp(t, signUpBody());
    expect(known.statusCode).toBe(fresh.statusCode);
    expect(Object.keys(known.json())).toEqual(Object.keys(fresh.json()));
    expect(known.json<{ userId: string }>().userId).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(known.headers['content-type']).toBe(fresh.headers['content-type']);

    const usersAfter = await t.db
      .selectFrom('users')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(usersAfter.n)).toBe(Number(usersBefore.n) + 1);
    const stillOwner = await findUserByEmailKey(t.db, normalizeEmail(owner.email));
    expect(stillOwner?.first_name).toBe('Ada');
    expect(stillOwner?.password_hash).toBe(owner.user.password_hash);

    const mails = await mailsTo(t, owner.email);
    expect(mails.map((mail) => mail.kind)).toEqual(['signupAttempt']);
    expect(mails[0]?.text_body).toContain(`${t.config.publicUrl}/sign-in`);
    expect(mails[0]?.text_body).toContain(`${t.config.publicUrl}/forgot-password`);
    expect(mails[0]?.text_body).not.toMatch(/verify-email|setup-account/);
    const attempt = await t.db
      .selectFrom('signup_attempts')
      .selectAll()
      .where('id', '=', known.json<{ userId: string }>().userId)
      .executeTakeFirstOrThrow();
    expect(attempt.user_id).toBeNull();
    expect((await listAuditEvents(t.db, { emailKey: normalizeEmail(owner.email), type: 'signup.existing' })).length).toBe(1);
    // The owner's password still works; the one typed at the known-email sign-up does not.
    expect((await postSignIn(t.app, owner)).statusCode).toBe(200);
  });

  it("puts none of the names a sign-up typed into the verification mail: a stranger's words never arrive in Foyer's mail", async () => {
    const lure = 'there. Your account is on hold: confirm at https://evil.example/foyer before 5pm';
    const body = signUpBody({ firstName: lure, lastName: 'X' });
    expect((await postSignUp(t, body)).statusCode).toBe(200);
    const [mail] = await mailsTo(t, body.email, 'verifyEmail');
    expect(mail?.text_body).toMatch(/^Hello,\n/);
    expect(mail?.text_body).not.toContain('evil.example');
    expect(mail?.html_body).not.toContain('evil.example');
  });

  it('mails a deactivated account nothing when its email is signed up again: its sign-in and reset links would do nothing', async () => {
    const owner = await createTestUser(t, { deactivated: true });
    const known = await postSignUp(t, signUpBody({ email: owner.email }));
    expect(known.statusCode).toBe(200);
    expect(await mailsTo(t, owner.email)).toEqual([]);
  });

  it('sends an unverified account a link of its own for each sign-up; the one clicked decides, the other dies', async () => {
    const first = signUpBody();
    await postSignUp(t, first);
    const firstToken = await latestToken(t, first.email, 'verifyEmail');
    t.clock.advance(1000);
    const again = await postSignUp(t, signUpBody({ email: first.email, firstName: 'Someone', hashPassword: 'f'.repeat(64) }));
    expect(again.statusCode).toBe(200);
    const mails = await mailsTo(t, first.email);
    expect(mails.map((mail) => mail.kind)).toEqual(['verifyEmail', 'verifyEmail']);
    const secondToken = tokenIn(mails[1]?.text_body ?? '', 'verifyEmail');
    expect(secondToken).not.toBe(firstToken);
    // Nothing about the account changed yet.
    expect((await findUserByEmailKey(t.db, normalizeEmail(first.email)))?.first_name).toBe('Ada');

    const second = await postJson(t, SETUP_URL, { token: secondToken, deviceId: newDeviceId() });
    expect(second.statusCode).toBe(200);
    const user = await findUserByEmailKey(t.db, normalizeEmail(first.email));
    expect(user?.first_name).toBe('Someone');
    expect(user?.email_verified_at).not.toBeNull();
    // The first sign-up's link ended with the verification, and says so (decision 0020).
    const old = await postJson(t, SETUP_URL, { token: firstToken, deviceId: newDeviceId() });
    expect(old.json()).toEqual({ errorMessage: 'alreadyVerified' });
  });

  it('answers ssoRequired (409) for a domain an organisation claimed with SSO, and creates nothing', async () => {
    const now = t.clock.now();
    await t.db.insertInto('organizations').values({ id: 'org-sso', name: 'Initech', name_key: 'initech', created_at: now }).execute();
    await t.db.insertInto('organization_domains').values({ domain: 'initech.example', org_id: 'org-sso', sso_required: 1, created_at: now }).execute();
    await t.db.insertInto('organizations').values({ id: 'org-open', name: 'Globex', name_key: 'globex', created_at: now }).execute();
    await t.db.insertInto('organization_domains').values({ domain: 'globex.example', org_id: 'org-open', sso_required: 0, created_at: now }).execute();

    const refused = await postSignUp(t, signUpBody({ email: 'Peter@Initech.example' }));
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toEqual({ errorMessage: 'ssoRequired' });
    expect(await findUserByEmailKey(t.db, 'peter@initech.example')).toBeUndefined();
    expect(await mailsTo(t, 'Peter@Initech.example')).toEqual([]);

    // A claim without SSO, and a subdomain of a claimed domain, sign up as usual.
    expect((await postSignUp(t, signUpBody({ email: 'hank@globex.example' }))).statusCode).toBe(200);
    expect((await postSignUp(t, signUpBody({ email: 'bob@eu.initech.example' }))).statusCode).toBe(200);
  });

  it('refuses malformed input with invalidRequest and the failing fields', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ email: 'not-an-email' }, 'email'],
      [{ firstName: '   ' }, 'firstName'],
      [{ lastName: '' }, 'lastName'],
      [{ hashPassword: 'plain text password' }, 'hashPassword'],
      [{ deviceId: 'short' }, 'deviceId'],
      [{ initialIntent: 'enterprise' }, 'initialIntent'],
    ];
    for (const [override, field] of cases) {
      const body = signUpBody(override);
      const response = await postSignUp(t, body);
      expect(response.statusCode, field).toBe(400);
      expect(response.json()).toEqual({ errorMessage: 'invalidRequest', fields: [field] });
      expect(await findUserByEmailKey(t.db, normalizeEmail(body.email))).toBeUndefined();
    }
  });

  it('refuses an 11th sign-up from one address within the hour with 429 rateLimitExeeded', async () => {
    const time = limiterTime(t);
    for (let i = 0; i < 10; i++) expect((await postSignUp(t, signUpBody())).statusCode).toBe(200);
    const refused = await postSignUp(t, signUpBody());
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toEqual({ errorMessage: 'rateLimitExeeded' });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    // Another address is not affected; an hour later this one may sign up again.
    expect((await postSignUp(t, signUpBody(), { remoteAddress: '203.0.113.9' })).statusCode).toBe(200);
    time.advance(60 * 60 * 1000);
    expect((await postSignUp(t, signUpBody())).statusCode).toBe(200);
  });

  it('keeps the account and its mail in one transaction: a failing outbox write leaves no account', async () => {
    // Make the outbox insert fail for real, the way a full disk or a lost table would.
    const count = async (table: 'email_tokens' | 'signup_attempts' | 'user_attribution' | 'audit_events') =>
      Number(
        (
          await t.db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const tables = ['email_tokens', 'signup_attempts', 'user_attribution', 'audit_events'] as const;
    const before = await Promise.all(tables.map(count));
    await sql`alter table mail_outbox rename to mail_outbox_away`.execute(t.db);
    try {
      const body = signUpBody();
      const response = await postSignUp(t, body);
      expect(response.statusCode).toBe(500);
      expect(response.json()).toEqual({ errorMessage: 'unexpectedError' });
      expect(await findUserByEmailKey(t.db, normalizeEmail(body.email))).toBeUndefined();
      expect(await Promise.all(tables.map(count))).toEqual(before);
    } finally {
      await sql`alter table mail_outbox_away rename to mail_outbox`.execute(t.db);
    }
  });

  it('lets two sign-ups of one new email race: one account, and the same answer to both', async () => {
    const email = signUpBody().email;
    const [a, b] = await Promise.all([postSignUp(t, signUpBody({ email })), postSignUp(t, signUpBody({ email }))]);
    expect([a.statusCode, b.statusCode]).toEqual([200, 200]);
    const rows = await t.db.selectFrom('users').select('id').where('email_key', '=', normalizeEmail(email)).execute();
    expect(rows).toHaveLength(1);
  });
});
