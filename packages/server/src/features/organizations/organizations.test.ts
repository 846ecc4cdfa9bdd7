import { normalizeEmail } from '@foyer/contract';
import { describe, expect, it } from 'vitest';
import { SETUP_URL, fieldsUrl, latestToken, mailsTo, postJson, postSignUp, signUpBody } from '../../../test/account-entry.js';
import { createTestUser, dbUnavailable, getSession, newDeviceId, postSignIn, uniqueEmail, useTestApp } from '../../../test/helpers.js';
import { EXIT, runAdmin } from '../../cli/admin.js';
import { sha256Hex } from '../../lib/crypto.js';
import { listAuditEvents } from '../audit/audit.repo.js';
import { findUserByEmailKey } from '../users/users.repo.js';

describe.skipIf(dbUnavailable)('organisations and invitations (admin CLI)', () => {
  const t = useTestApp();

  async function run(...argv: string[]) {
    let stdout = '';
    let stderr = '';
    const code = await runAdmin(argv, { deps: t.deps, stdout: (text) => (stdout += text), stderr: (text) => (stderr += text) });
    return { code, stdout, stderr };
  }

  const unique = (prefix: string) => `${prefix} ${sha256Hex(uniqueEmail()).slice(0, 8)}`;
  const domainOf = (name: string) => `${name.toLowerCase().replace(/[^a-z0-9]+/g, '-')}.example`;

  async function createOrg(...extra: string[]): Promise<{ id: string; name: string }> {
    const name = unique('Acme');
    const result = await run('org', 'create', '--name', name, ...extra);
    expect(result.code, result.stderr).toBe(EXIT.ok);
    return { id: result.stdout.trim(), name };
  }

  it('creates an organisation and prints only its id', async () => {
    const name = unique('Initech');
    const result = await run('org', 'create', '--name', `  ${name} `);
    expect(result.code).toBe(EXIT.ok);
    expect(result.stdout).toMatch(/^org_[A-Za-z0-9_-]{22}\n$/);
    const row = await t.db.selectFrom('organizations').selectAll().where('id', '=', result.stdout.trim()).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ name, name_key: name.toLowerCase() });
    expect((await listAuditEvents(t.db, { type: 'org.created' })).length).toBeGreaterThan(0);
  });

  it('claims a domain with SSO required at creation; sign-up there then answers ssoRequired', async () => {
    const name = unique('Hooli');
    const domain = domainOf(name);
    expect((await run('org', 'create', '--name', name, '--domain', `@${domain.toUpperCase()}`, '--sso-required')).code).toBe(EXIT.ok);
    const claim = await t.db.selectFrom('organization_domains').selectAll().where('domain', '=', domain).executeTakeFirstOrThrow();
    expect(claim.sso_required).toBe(1);
    const response = await postSignUp(t, signUpBody({ email: `gavin@${domain}` }));
    expect(response.statusCode).toBe(409);
    expect(response.json()).toEqual({ errorMessage: 'ssoRequired' });
  });

  it("ends the sessions and device tokens of the domain's accounts when SSO becomes required there, and only theirs", async () => {
    const org = await createOrg();
    const domain = domainOf(org.name);
    const member = await createTestUser(t, { email: `ivy@${domain}` });
    const outsider = await createTestUser(t, { email: `ivy@other-${domain}` });
    const memberDevice = newDeviceId();
    const outsiderDevice = newDeviceId();
    const memberSession = (await postSignIn(t.app, { ...member, deviceId: memberDevice })).json<{ otter: string }>().otter;
    const outsiderSession = (await postSignIn(t.app, { ...outsider, deviceId: outsiderDevice })).json<{ otter: string }>().otter;
    // Claimed without the requirement first: nothing ends.
    expect((await run('org', 'claim-domain', '--org', org.id, '--domain', domain)).code).toBe(EXIT.ok);
    expect((await getSession(t, memberSession, memberDevice)).statusCode).toBe(200);

    expect((await run('org', 'claim-domain', '--org', org.id, '--domain', domain, '--sso-required')).code).toBe(EXIT.ok);
    expect((await getSession(t, memberSession, memberDevice)).statusCode).toBe(401);
    expect((await getSession(t, outsiderSession, outsiderDevice)).statusCode).toBe(200);
    const claims = await listAuditEvents(t.db, { type: 'org.domainClaimed' });
    expect(claims.map((event) => JSON.parse(event.detail ?? '{}') as unknown)).toContainEqual({
      orgId: org.id,
      domain,
      ssoRequired: true,
      sessionsEnded: 1,
    });
  });

  it('claims and re-claims a domain by organisation name; another organisation cannot take it', async () => {
    const org = await createOrg();
    const domain = domainOf(org.name);
    const claimed = await run('org', 'claim-domain', '--org', org.name.toUpperCase(), '--domain', domain, '--sso-required');
    expect(claimed.code).toBe(EXIT.ok);
    expect(claimed.stdout).toContain(`Claimed ${domain}`);
    expect((await postSignUp(t, signUpBody({ email: `a@${domain}` }))).statusCode).toBe(409);

    const relaxed = await run('org', 'claim-domain', '--org', org.id, '--domain', domain);
    expect(relaxed.stdout).toContain(`Updated ${domain}`);
    expect((await postSignUp(t, signUpBody({ email: `b@${domain}` }))).statusCode).toBe(200);

    const rival = await createOrg();
    const taken = await run('org', 'claim-domain', '--org', rival.id, '--domain', domain);
    expect(taken.code).toBe(EXIT.failed);
    expect(taken.stderr).toContain('already claimed');
  });

  it('refuses bad input: exit 1 with a reason, or 2 for a wrong command line', async () => {
    const org = await createOrg();
    const failed: string[][] = [
      ['org', 'create', '--name', org.name.toLowerCase()],
      ['org', 'create', '--name', '   '],
      // A control character would reach invitation mails as it is.
      ['org', 'create', '--name', `Ev\nil ${unique('Z')}`],
      ['org', 'create', '--name', unique('X'), '--domain', 'not a domain'],
      ['org', 'claim-domain', '--org', 'no such org', '--domain', 'x.example'],
      ['invite', '--org', 'no such org', '--email', uniqueEmail()],
      ['invite', '--org', org.id, '--email', 'not-an-email'],
      ['invite', '--org', org.id, '--email', uniqueEmail(), '--locale', 'xx'],
    ];
    for (const argv of failed) {
      const result = await run(...argv);
      expect(result.code, argv.join(' ')).toBe(EXIT.failed);
      expect(result.stderr).toMatch(/^Error: /);
      expect(result.stdout).toBe('');
    }
    expect((await run('org', 'create', '--name', unique('Y'), '--sso-required')).code).toBe(EXIT.usage);
    expect((await run('invite', '--org', org.id)).stderr).toContain('missing --email');
    expect((await run('org', 'delete')).stderr).toContain('unknown command "org delete"');
    expect((await run('--help')).stdout).toContain('invite --org O --email E');
  });

  it('invites a member who sets name and password from the emailed link and lands signed in', async () => {
    const org = await createOrg();
    const email = uniqueEmail('Invitee');
    const result = await run('invite', '--org', org.name, '--email', email);
    expect(result.code, result.stderr).toBe(EXIT.ok);
    expect(result.stdout).toContain(`Invited ${email}`);

    const member = await findUserByEmailKey(t.db, normalizeEmail(email));
    expect(member).toMatchObject({ org_id: org.id, first_name: null, last_name: null, password_hash: null, email_verified_at: null, locale: 'en' });
    const mails = await mailsTo(t, email, 'invitation');
    expect(mails).toHaveLength(1);
    expect(mails[0]?.subject).toContain(org.name);
    expect(mails[0]?.text_body).toContain(org.name);
    const token = await latestToken(t, email, 'invitation');
    const link = await t.db.selectFrom('email_tokens').selectAll().where('id', '=', sha256Hex(token)).executeTakeFirstOrThrow();
    expect(link).toMatchObject({ purpose: 'invitation', expires_at: t.clock.now() + 7 * 24 * 60 * 60 * 1000 });

    const fields = await t.app.inject({ method: 'GET', url: fieldsUrl(token) });
    // The screen names the account and the organisation that invited it (decision 0020).
    expect(fields.json()).toEqual({ fields: ['firstName', 'lastName', 'hashPassword', 'phoneNumber'], email, organization: org.name });
    const deviceId = newDeviceId();
    const setup = await postJson(t, SETUP_URL, { token, deviceId, firstName: 'Ines', lastName: 'Vitée', hashPassword: sha256Hex('invited passphrase') });
    expect(setup.statusCode).toBe(200);
    const session = await getSession(t, setup.json<{ otter: string }>().otter, deviceId);
    expect(session.json()).toMatchObject({ user: { email, firstName: 'Ines', lastName: 'Vitée', emailVerified: true } });
    expect((await postSignIn(t.app, { email, password: 'invited passphrase' })).statusCode).toBe(200);
    expect((await listAuditEvents(t.db, { emailKey: normalizeEmail(email), type: 'org.invited' })).length).toBe(1);
  });

  it('writes the invitation in the language asked for, with the organisation name escaped in HTML', async () => {
    const name = `<b>Müller & Söhne</b> ${sha256Hex(uniqueEmail()).slice(0, 6)}`;
    const created = await run('org', 'create', '--name', name);
    const email = uniqueEmail();
    expect((await run('invite', '--org', created.stdout.trim(), '--email', email, '--locale', 'de')).code).toBe(EXIT.ok);
    const [mail] = await mailsTo(t, email, 'invitation');
    expect(mail?.locale).toBe('de');
    expect(mail?.subject).toMatch(/^Einladung zu <b>Müller & Söhne<\/b>/);
    expect(mail?.html_body).toContain('&#60;b&#62;Müller &#38; Söhne&#60;/b&#62;');
    expect(mail?.html_body).not.toContain('<b>Müller');
    expect((await findUserByEmailKey(t.db, normalizeEmail(email)))?.locale).toBe('de');
  });

  it('re-sends a fresh link to a member who has not finished setup; the old link stops working', async () => {
    const org = await createOrg();
    const email = uniqueEmail();
    await run('invite', '--org', org.id, '--email', email);
    const first = await latestToken(t, email, 'invitation');
    const again = await run('invite', '--org', org.id, '--email', email.toUpperCase());
    expect(again.code).toBe(EXIT.ok);
    expect(again.stdout).toContain('fresh setup link');
    const second = await latestToken(t, email, 'invitation');
    expect(second).not.toBe(first);
    expect((await t.app.inject({ method: 'GET', url: fieldsUrl(first) })).json()).toEqual({ errorMessage: 'invalidToken' });
    expect((await t.app.inject({ method: 'GET', url: fieldsUrl(second) })).statusCode).toBe(200);
    expect(await t.db.selectFrom('users').select('id').where('email_key', '=', normalizeEmail(email)).execute()).toHaveLength(1);
  });

  it("makes an unverified account of no organisation the invitee's: a stranger's sign-up no longer blocks the invitation", async () => {
    const org = await createOrg();
    const email = uniqueEmail('early');
    const signUp = await postSignUp(t, signUpBody({ email, firstName: 'Mallory', lastName: 'Stranger' }));
    expect(signUp.statusCode).toBe(200);
    const strangersLink = await latestToken(t, email, 'verifyEmail');
    const before = await findUserByEmailKey(t.db, normalizeEmail(email));
    expect(before).toMatchObject({ org_id: null, email_verified_at: null });

    const result = await run('invite', '--org', org.id, '--email', email);
    expect(result.code, result.stderr).toBe(EXIT.ok);
    const member = await findUserByEmailKey(t.db, normalizeEmail(email));
    expect(member).toMatchObject({ id: before?.id, org_id: org.id, first_name: null, last_name: null, password_hash: null, email_verified_at: null });
    // The stranger's link is dead; the invitee's sets the account up.
    expect((await t.app.inject({ method: 'GET', url: fieldsUrl(strangersLink) })).statusCode).not.toBe(200);
    const token = await latestToken(t, email, 'invitation');
    const setup = await postJson(t, SETUP_URL, {
      token,
      deviceId: newDeviceId(),
      firstName: 'Ines',
      lastName: 'Owner',
      hashPassword: sha256Hex('the owner phrase'),
    });
    expect(setup.statusCode).toBe(200);
    expect((await postSignIn(t.app, { email, password: 'the owner phrase' })).statusCode).toBe(200);
  });

  it('leaves set-up members and accounts outside the organisation alone', async () => {
    const org = await createOrg();
    const outsider = await createTestUser(t);
    const refused = await run('invite', '--org', org.id, '--email', outsider.email);
    expect(refused.code).toBe(EXIT.failed);
    expect(refused.stderr).toContain('outside this organisation');

    const email = uniqueEmail();
    await run('invite', '--org', org.id, '--email', email);
    const token = await latestToken(t, email, 'invitation');
    await postJson(t, SETUP_URL, { token, deviceId: newDeviceId(), firstName: 'A', lastName: 'B', hashPassword: sha256Hex('a rarely used phrase') });
    const done = await run('invite', '--org', org.id, '--email', email);
    expect(done.code).toBe(EXIT.failed);
    expect(done.stderr).toContain('already set up');
    expect(await mailsTo(t, email, 'invitation')).toHaveLength(1);
  });
});
