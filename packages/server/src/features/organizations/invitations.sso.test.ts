import { API_BASE, CALLS, normalizeEmail } from '@foyer/contract';
import { describe, expect, it } from 'vitest';
import { SETUP_URL, fieldsUrl, latestToken, mailsTo, postJson } from '../../../test/account-entry.js';
import { createTestUser, dbUnavailable, newDeviceId, postSignIn, uniqueEmail, useTestApp } from '../../../test/helpers.js';
import { postReset, requestResetToken } from '../../../test/password.js';
import { EXIT, runAdmin } from '../../cli/admin.js';
import { sha256Hex } from '../../lib/crypto.js';
import { CLI_META } from '../audit/audit.service.js';
import { findUserByEmailKey } from '../users/users.repo.js';
import { inviteMember } from './invitations.service.js';
import { claimDomain, createOrganization } from './organizations.service.js';

const freshDomain = () => `sso-${sha256Hex(uniqueEmail()).slice(0, 10)}.example`;

describe.skipIf(dbUnavailable)('invitations into an organisation that requires SSO (decision 0022)', () => {
  const t = useTestApp();

  it('mails a link to /sso-sign-in with the address filled in, and no setup link', async () => {
    const domain = freshDomain();
    const org = await createOrganization(t.deps, { name: `Umbrella ${domain}`, domain, ssoRequired: true }, CLI_META);
    const email = `Jill.Valentine@${domain}`;
    const { user } = await inviteMember(t.deps, { org: org.id, email }, CLI_META);
    expect(user).toMatchObject({ org_id: org.id, password_hash: null, email_verified_at: null });

    expect(await mailsTo(t, email, 'invitation')).toEqual([]);
    const [mail, ...more] = await mailsTo(t, email, 'ssoInvitation');
    expect(more).toEqual([]);
    const link = `${t.config.publicUrl}/sso-sign-in?email=${encodeURIComponent(email)}`;
    expect(mail?.subject).toBe(`You are invited to join ${org.name} on Foyer`);
    expect(mail?.text_body).toContain(link);
    expect(mail?.text_body).toContain('there is no password to choose');
    expect(mail?.html_body).toContain(`href="${link}"`);
    expect(mail?.text_body).not.toContain('/setup-account/');
    // No token of any kind was issued for the member.
    expect(await t.db.selectFrom('email_tokens').select('id').where('user_id', '=', user.id).execute()).toEqual([]);
  });

  it('says so on the admin CLI', async () => {
    const domain = freshDomain();
    const org = await createOrganization(t.deps, { name: `Org ${domain}`, domain, ssoRequired: true }, CLI_META);
    let stdout = '';
    const code = await runAdmin(['invite', '--org', org.name, '--email', `carlos@${domain}`], {
      deps: t.deps,
      stdout: (text) => (stdout += text),
      stderr: () => undefined,
    });
    expect(code).toBe(EXIT.ok);
    expect(stdout).toContain(`Invited carlos@${domain}`);
    expect(stdout).toContain('a link to SSO sign-in is in the mail queue');
    expect(await mailsTo(t, `carlos@${domain}`, 'ssoInvitation')).toHaveLength(1);
  });

  it.each([
    ['de', 'Mit SSO anmelden', 'kein Passwort'],
    ['fr', 'Se connecter avec SSO', 'aucun mot de passe'],
    ['es', 'Iniciar sesión con SSO', 'ninguna contraseña'],
  ])('writes it in %s', async (locale, action, noPassword) => {
    const domain = freshDomain();
    const org = await createOrganization(t.deps, { name: `Org ${domain}`, domain, ssoRequired: true }, CLI_META);
    const email = `member@${domain}`;
    await inviteMember(t.deps, { org: org.id, email, locale }, CLI_META);
    const [mail] = await mailsTo(t, email, 'ssoInvitation');
    expect(mail?.locale).toBe(locale);
    expect(mail?.subject).toContain(org.name);
    expect(mail?.html_body).toContain(action);
    expect(mail?.text_body).toContain(noPassword);
    expect(mail?.text_body).toContain('/sso-sign-in?email=member%40');
  });

  it('ends a setup link sent before the domain required SSO: no password can be set with it', async () => {
    const domain = freshDomain();
    const org = await createOrganization(t.deps, { name: `Org ${domain}`, domain, ssoRequired: false }, CLI_META);
    const email = `early@${domain}`;
    await inviteMember(t.deps, { org: org.id, email }, CLI_META);
    const token = await latestToken(t, email, 'invitation');
    expect((await t.app.inject({ method: 'GET', url: fieldsUrl(token) })).statusCode).toBe(200);

    await claimDomain(t.deps, { org: org.id, domain, ssoRequired: true }, CLI_META);
    const fields = await t.app.inject({ method: 'GET', url: fieldsUrl(token) });
    expect(fields.statusCode).toBe(400);
    expect(fields.json()).toEqual({ errorMessage: 'invalidToken' });
    const setup = await postJson(t, SETUP_URL, {
      token,
      deviceId: newDeviceId(),
      firstName: 'E',
      lastName: 'Arly',
      hashPassword: sha256Hex('a chosen passphrase'),
    });
    expect(setup.statusCode).toBe(400);
    expect(setup.json()).toEqual({ errorMessage: 'invalidToken' });
    const member = await findUserByEmailKey(t.db, normalizeEmail(email));
    expect(member).toMatchObject({ password_hash: null, email_verified_at: null });
    expect((await postSignIn(t.app, { email, password: 'a chosen passphrase' })).json()).toEqual({ errorMessage: 'ssoRequired' });

    // Inviting again mails the SSO link and spends the old setup link for good.
    await inviteMember(t.deps, { org: org.id, email }, CLI_META);
    expect(await mailsTo(t, email, 'ssoInvitation')).toHaveLength(1);
    const row = await t.db.selectFrom('email_tokens').select('used_at').where('id', '=', sha256Hex(token)).executeTakeFirstOrThrow();
    expect(row.used_at).not.toBeNull();
  });

  it('ends a reset link sent before the domain required SSO: no password can be set with it', async () => {
    const domain = freshDomain();
    const account = await createTestUser(t, { email: `reset@${domain}` });
    const token = await requestResetToken(t, account.email);
    const org = await createOrganization(t.deps, { name: `Org ${domain}`, domain, ssoRequired: true }, CLI_META);
    expect(org.id).toBeTruthy();

    const check = await t.app.inject({ method: 'GET', url: API_BASE + CALLS.resetPasswordCheck.path.replace(':token', token) });
    expect(check.statusCode).toBe(400);
    expect(check.json()).toEqual({ errorMessage: 'invalidToken' });
    const reset = await postReset(t, token, 'a brand new passphrase');
    expect(reset.statusCode).toBe(400);
    expect(reset.json()).toEqual({ errorMessage: 'invalidToken' });
    const user = await findUserByEmailKey(t.db, normalizeEmail(account.email));
    expect(user?.password_hash).toBe(account.user.password_hash);
    expect((await postSignIn(t.app, { email: account.email, password: 'a brand new passphrase' })).json()).toEqual({ errorMessage: 'ssoRequired' });
  });
});
