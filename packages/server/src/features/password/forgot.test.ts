import { normalizeEmail } from '@foyer/contract';
import { describe, expect, it } from 'vitest';
import { mailsTo } from '../../../test/account-entry.js';
import { HOUR, MINUTE, createTestUser, dbUnavailable, uniqueEmail, useTestApp } from '../../../test/helpers.js';
import { postForgot, postReset, randomAddress, requestResetToken, resetTokenIn } from '../../../test/password.js';
import { sha256Hex } from '../../lib/crypto.js';
import { listAuditEvents } from '../audit/audit.repo.js';
import { limiterTime } from '../../../test/limiter-time.js';

describe.skipIf(dbUnavailable)('POST /api/account/forgotPassword', () => {
  const t = useTestApp();

  it('queues a /reset-password/<token> link for an active account; the token is stored hashed for one hour', async () => {
    const { email, user } = await createTestUser(t);
    const response = await postForgot(t, { email: `  ${email.toUpperCase()} ` });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({});

    const mails = await mailsTo(t, email);
    expect(mails.map((mail) => mail.kind)).toEqual(['passwordReset']);
    expect(mails[0]).toMatchObject({ locale: 'en', subject: 'Reset your Foyer password' });
    const token = resetTokenIn(mails[0]?.text_body ?? '');
    expect(mails[0]?.text_body).toContain(`${t.config.publicUrl}/reset-password/${token}`);
    expect(mails[0]?.html_body).toContain(`href="${t.config.publicUrl}/reset-password/${token}"`);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);

    const stored = await t.db.selectFrom('email_tokens').selectAll().where('user_id', '=', user.id).execute();
    expect(stored).toEqual([
      {
        id: sha256Hex(token),
        user_id: user.id,
        purpose: 'passwordReset',
        created_at: t.clock.now(),
        expires_at: t.clock.now() + HOUR,
        used_at: null,
        signup_id: null,
        ended_reason: null,
        new_email: null,
        binding_hash: null,
      },
    ]);
    const events = await listAuditEvents(t.db, { emailKey: normalizeEmail(email), type: 'password.resetRequested' });
    expect(events.map((event) => JSON.parse(event.detail ?? '{}') as unknown)).toEqual([{ sent: true }]);
    // The link works.
    expect((await postReset(t, token, 'a brand new password')).statusCode).toBe(200);
  });

  it('answers an unknown and a deactivated email exactly like an active one, and sends nothing', async () => {
    const active = await createTestUser(t);
    const deactivated = await createTestUser(t, { deactivated: true });
    const unknown = uniqueEmail('nobody');
    const answers = [
      await postForgot(t, { email: active.email }),
      await postForgot(t, { email: unknown }),
      await postForgot(t, { email: deactivated.email }),
    ];
    for (const answer of answers) {
      expect(answer.statusCode).toBe(200);
      expect(answer.body).toBe(answers[0]?.body);
      expect(answer.headers['content-type']).toBe(answers[0]?.headers['content-type']);
      expect(answer.headers['set-cookie']).toBeUndefined();
    }
    expect(await mailsTo(t, active.email)).toHaveLength(1);
    expect(await mailsTo(t, unknown)).toEqual([]);
    expect(await mailsTo(t, deactivated.email)).toEqual([]);
    expect(await t.db.selectFrom('email_tokens').select('id').where('user_id', '=', deactivated.user.id).execute()).toEqual([]);

    const reasons = async (email: string) =>
      (await listAuditEvents(t.db, { emailKey: normalizeEmail(email), type: 'password.resetRequested' })).map(
        (event) => JSON.parse(event.detail ?? '{}') as unknown,
      );
    expect(await reasons(unknown)).toEqual([{ sent: false, reason: 'unknownEmail' }]);
    expect(await reasons(deactivated.email)).toEqual([{ sent: false, reason: 'deactivated' }]);
  });

  it('writes in the language stored with the account, else in the language of the request', async () => {
    const german = await createTestUser(t);
    await t.db.updateTable('users').set({ locale: 'de' }).where('id', '=', german.user.id).execute();
    await postForgot(t, { email: german.email }, { headers: { 'accept-language': 'fr-FR,fr' } });
    const [mail] = await mailsTo(t, german.email);
    expect(mail).toMatchObject({ locale: 'de', subject: 'Setzen Sie Ihr Foyer-Passwort zurück' });
    expect(mail?.text_body).toContain('60 Minuten');
    expect(mail?.html_body).toContain('<html lang="de">');

    const noLocale = await createTestUser(t);
    await postForgot(t, { email: noLocale.email }, { headers: { 'accept-language': 'es-MX,es;q=0.9' } });
    expect((await mailsTo(t, noLocale.email))[0]).toMatchObject({ locale: 'es', subject: 'Restablezca su contraseña de Foyer' });
  });

  it('ends the older unspent link when a newer one is asked for', async () => {
    const { email } = await createTestUser(t);
    const first = await requestResetToken(t, email);
    const second = await requestResetToken(t, email);
    expect(second).not.toBe(first);
    expect((await postReset(t, first, 'a brand new password')).json()).toEqual({ errorMessage: 'invalidToken' });
    expect((await postReset(t, second, 'a brand new password')).statusCode).toBe(200);
  });

  it('leaves exactly one live link when five requests for one email arrive at once', async () => {
    const { user, email } = await createTestUser(t);
    const answers = await Promise.all(Array.from({ length: 5 }, () => postForgot(t, { email }, { remoteAddress: randomAddress() })));
    expect(answers.map((answer) => answer.statusCode)).toEqual([200, 200, 200, 200, 200]);
    const tokens = await t.db
      .selectFrom('email_tokens')
      .select(['used_at', 'ended_reason'])
      .where('user_id', '=', user.id)
      .where('purpose', '=', 'passwordReset')
      .execute();
    expect(tokens).toHaveLength(5);
    expect(tokens.filter((token) => token.used_at === null)).toHaveLength(1);
    expect(tokens.filter((token) => token.ended_reason === 'superseded')).toHaveLength(4);
  });

  it('sends an unverified account a link too (the link proves the address)', async () => {
    const { email } = await createTestUser(t, { verified: false });
    expect((await postForgot(t, { email })).statusCode).toBe(200);
    expect((await mailsTo(t, email)).map((mail) => mail.kind)).toEqual(['passwordReset']);
  });

  it('answers ssoRequired (409) for a domain whose organisation requires SSO, with or without an account', async () => {
    const now = t.clock.now();
    await t.db.insertInto('organizations').values({ id: 'org-sso', name: 'Initech', name_key: 'initech', created_at: now }).execute();
    await t.db.insertInto('organization_domains').values({ domain: 'initech.example', org_id: 'org-sso', sso_required: 1, created_at: now }).execute();
    await t.db.insertInto('organizations').values({ id: 'org-open', name: 'Globex', name_key: 'globex', created_at: now }).execute();
    await t.db.insertInto('organization_domains').values({ domain: 'globex.example', org_id: 'org-open', sso_required: 0, created_at: now }).execute();
    const member = await createTestUser(t, { email: 'peter@initech.example' });

    for (const email of [member.email, 'Nobody@INITECH.example']) {
      const response = await postForgot(t, { email });
      expect(response.statusCode).toBe(409);
      expect(response.json()).toEqual({ errorMessage: 'ssoRequired' });
    }
    expect(await mailsTo(t, member.email)).toEqual([]);

    const open = await createTestUser(t, { email: `hank-${Date.now()}@globex.example` });
    expect((await postForgot(t, { email: open.email })).statusCode).toBe(200);
    expect(await mailsTo(t, open.email)).toHaveLength(1);
  });

  it('counts an IPv6 client by its /64: addresses of one /64 share the per-address limit (decision 0017)', async () => {
    const prefix = randomAddress().replace(/::1$/, '');
    const answers: number[] = [];
    for (let i = 1; i <= 31; i++)
      answers.push((await postForgot(t, { email: uniqueEmail('slash64') }, { remoteAddress: `${prefix}::${i.toString(16)}` })).statusCode);
    expect(answers.slice(0, 30)).toEqual(Array.from({ length: 30 }, () => 200));
    expect(answers[30]).toBe(429);
    // The next /64 is another client.
    expect((await postForgot(t, { email: uniqueEmail('slash64') }, { remoteAddress: randomAddress() })).statusCode).toBe(200);
  });

  it('allows 5 requests per email an hour, from any address, then answers 429 with Retry-After', async () => {
    const time = limiterTime(t);
    const { email } = await createTestUser(t);
    for (let i = 0; i < 5; i++) expect((await postForgot(t, { email }, { remoteAddress: randomAddress() })).statusCode).toBe(200);
    const refused = await postForgot(t, { email: email.toUpperCase() }, { remoteAddress: randomAddress() });
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toEqual({ errorMessage: 'rateLimitExeeded' });
    // The clock stands still: the window, opened by the first request, ends in an hour.
    expect(refused.headers['retry-after']).toBe(String(60 * 60));
    expect(await mailsTo(t, email)).toHaveLength(5);
    time.advance(HOUR);
    expect((await postForgot(t, { email })).statusCode).toBe(200);
  });

  it('allows 30 requests per client address an hour, whatever the emails, then answers 429', async () => {
    const time = limiterTime(t);
    for (let i = 0; i < 30; i++) expect((await postForgot(t, { email: uniqueEmail('spray') })).statusCode).toBe(200);
    const refused = await postForgot(t, { email: uniqueEmail('spray') });
    expect(refused.statusCode).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    // Another address is not affected.
    expect((await postForgot(t, { email: uniqueEmail('spray') }, { remoteAddress: randomAddress() })).statusCode).toBe(200);
    time.advance(59 * MINUTE);
    expect((await postForgot(t, { email: uniqueEmail('spray') })).statusCode).toBe(429);
  });

  it('refuses malformed input with invalidRequest, never a 5xx', async () => {
    for (const body of [{ email: 'not-an-email' }, { email: '' }, {}, { email: 'a@example.com', reCaptchaToken: { token: 'x' } }]) {
      const response = await postForgot(t, body);
      expect(response.statusCode, JSON.stringify(body)).toBe(400);
      expect(response.json<{ errorMessage: string }>().errorMessage).toBe('invalidRequest');
    }
  });
});
