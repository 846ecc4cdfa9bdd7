import { describe, expect, it } from 'vitest';
import { buildApp } from '../../app.js';
import { CLI_META } from '../audit/audit.service.js';
import { listAuditEvents } from '../audit/audit.repo.js';
import { createOrganization } from '../organizations/organizations.service.js';
import { PASSWORD, VERIFY_URL, postJson, signedUp } from '../../../test/account-entry.js';
import {
  createTestUser,
  dbUnavailable,
  getSession,
  MINUTE,
  newDeviceId,
  postSignIn,
  refuseInserts,
  sessionCookieName,
  setCookie,
  uniqueEmail,
  useTestApp,
  createTestApp,
} from '../../../test/helpers.js';
import {
  ATTACKER_KEYS,
  IDP_KEYS,
  ROLLOVER_KEYS,
  assertionXml,
  encode,
  idOf,
  idpMetadata,
  newId,
  readAuthnRequest,
  responseXml,
  sign,
  signedResponse,
  type AssertionOptions,
} from '../../../test/saml-idp.js';
import {
  SSO_START_URL,
  TRANSFER_URL,
  exchange,
  expectRefused,
  landing,
  postAcs,
  postRefused,
  samlOrganization,
  startSso,
  testBrowserCookies,
} from '../../../test/sso.js';
import { TRANSFER_CHECK_URL } from '../../../test/google.js';
import { randomToken } from '../../lib/crypto.js';
import { bindingCookieName } from './sso.binding.js';

describe.skipIf(dbUnavailable)('company SSO over SAML: the assertion consumer (decision 0022)', () => {
  const t = useTestApp();

  /** An organisation, a started sign-in for one of its addresses, and the options of an honest answer. */
  async function started(options: { allowUnsolicited?: boolean; metadata?: string; state?: object } = {}) {
    const corp = await samlOrganization(t, options);
    const email = corp.email();
    const response = await startSso(t, email, options.state);
    expect(response.statusCode, response.body).toBe(200);
    const request = readAuthnRequest(response.json<{ url: string }>().url);
    const base: AssertionOptions = {
      acsUrl: corp.urls.acs,
      audience: corp.urls.entityId,
      nameId: `id-${newId()}`,
      email,
      givenName: 'Ada',
      familyName: 'Lovelace',
      inResponseTo: request.id,
      now: t.clock.now(),
    };
    return { corp, email, request, base };
  }

  const refused = async (connectionId: string, xml: string, reason?: string) =>
    postRefused(t, { id: connectionId, acs: acsOf(connectionId) }, xml, '1002', reason);
  const acsUrls = new Map<string, string>();
  const acsOf = (connectionId: string) => acsUrls.get(connectionId) ?? '';
  async function startedAndKnown(options: Parameters<typeof started>[0] = {}) {
    const s = await started(options);
    acsUrls.set(s.corp.connection.id, s.corp.urls.acs);
    return s;
  }

  describe('the SSO start call', () => {
    it('answers the IdP address with an AuthnRequest for this consumer, stored for its answer', async () => {
      const { corp, request } = await startedAndKnown();
      expect(request.xml).toContain(`Destination="https://idp.corp.example/sso"`);
      expect(request.xml).toContain(`AssertionConsumerServiceURL="${corp.urls.acs}"`);
      expect(request.xml).toContain(`>${corp.urls.entityId}</saml:Issuer>`);
      const row = await t.db.selectFrom('sso_requests').selectAll().where('id', '=', request.id).executeTakeFirst();
      expect(row).toMatchObject({ connection_id: corp.connection.id, used_at: null });
    });

    it("records the client's authentication period with the start", async () => {
      const corp = await samlOrganization(t);
      const email = corp.email();
      const response = await postJson(t, SSO_START_URL, { email, clientAuthenticationPeriodId: 'period-7' });
      expect(response.statusCode).toBe(200);
      const started = await listAuditEvents(t.db, { emailKey: email, type: 'sso.started' });
      expect(started.map((event) => JSON.parse(event.detail ?? '{}'))).toMatchObject([
        { connectionId: corp.connection.id, clientAuthenticationPeriodId: 'period-7' },
      ]);
    });

    it('answers ssoNotRecognized (404) for an unclaimed domain and for a claimed one without a connection', async () => {
      const unknown = await startSso(t, uniqueEmail());
      expect(unknown.statusCode).toBe(404);
      expect(unknown.json()).toEqual({ errorMessage: 'ssoNotRecognized' });
      await createOrganization(t.deps, { name: 'No SSO Ltd', domain: 'no-sso.example', ssoRequired: false }, CLI_META);
      expect((await startSso(t, 'a@no-sso.example')).json()).toEqual({ errorMessage: 'ssoNotRecognized' });
    });

    it('keeps an allowed return address and drops one the allow-list refuses', async () => {
      const kept = await startedAndKnown({ state: { returnUrl: '/home?tab=1' } });
      expect(kept.request.relayState).toBe('/home?tab=1');
      const dropped = await startedAndKnown({ state: { returnUrl: 'https://evil.example/x' } });
      expect(dropped.request.relayState).toBeNull();
      const row = await t.db.selectFrom('sso_requests').select('return_url').where('id', '=', dropped.request.id).executeTakeFirstOrThrow();
      expect(row.return_url).toBeNull();
    });
  });

  describe('a valid response (point 3)', () => {
    it('provisions a verified member just in time and hands a single-use transfer token to /ssol', async () => {
      const { corp, email, base } = await startedAndKnown();
      const params = landing(await postAcs(t, corp.urls.acs, signedResponse(base)));
      const token = params.get('transferToken') ?? '';
      expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(params.get('native')).toBeNull();
      const user = await t.db.selectFrom('users').selectAll().where('email_key', '=', email).executeTakeFirstOrThrow();
      expect(user).toMatchObject({ org_id: corp.org.id, first_name: 'Ada', last_name: 'Lovelace', password_hash: null });
      expect(user.email_verified_at).not.toBeNull();
      const identity = await t.db.selectFrom('external_identities').selectAll().where('user_id', '=', user.id).executeTakeFirstOrThrow();
      expect(identity).toMatchObject({ issuer: `sso:${corp.connection.id}`, subject: base.nameId });

      const deviceId = newDeviceId();
      const { otter } = (await exchange(t, token)).json<{ otter: string }>();
      expect((await getSession(t, otter, deviceId)).statusCode).toBe(401); // bound to the exchanging device
      expect((await exchange(t, token)).json()).toEqual({ errorMessage: 'ssoTransferFailed' });
      expect((await listAuditEvents(t.db, { emailKey: email, type: 'sso.signup' })).length).toBe(1);
    });

    it('binds the sign-in to the browser that started it: another browser cannot exchange its token (login CSRF)', async () => {
      // The start sets the binding cookie, HttpOnly and SameSite=Strict, keeping a value the browser already holds.
      const corp = await samlOrganization(t);
      const fresh = await postJson(t, SSO_START_URL, { email: corp.email() });
      const set = setCookie(fresh, bindingCookieName(t.config));
      expect(set).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/' });
      expect(set?.value).toMatch(/^[A-Za-z0-9_-]{43}$/);
      const kept = await startSso(t, corp.email());
      expect(setCookie(kept, bindingCookieName(t.config))?.value).toBe(testBrowserCookies(t)[bindingCookieName(t.config)]);
      // A refused start leaves the browser as it was.
      const unknown = await postJson(t, SSO_START_URL, { email: uniqueEmail('nobody') });
      expect(unknown.json()).toEqual({ errorMessage: 'ssoNotRecognized' });
      expect(setCookie(unknown, bindingCookieName(t.config))).toBeUndefined();

      for (const kind of ['returning', 'new'] as const) {
        const { corp: org, base } = await startedAndKnown();
        if (kind === 'returning') {
          landing(await postAcs(t, org.urls.acs, signedResponse(base)));
          const again = readAuthnRequest((await startSso(t, base.email ?? '')).json<{ url: string }>().url);
          base.inResponseTo = again.id;
        }
        // The starter's provider answer, posted from a victim's browser: the landing hands that browser the token.
        const token = landing(await postAcs(t, org.urls.acs, signedResponse(base))).get('transferToken') ?? '';
        const elsewhere = { [bindingCookieName(t.config)]: randomToken() };
        for (const cookies of [{}, elsewhere]) {
          const refused = await exchange(t, token, cookies);
          expect([kind, refused.statusCode, refused.json()]).toEqual([kind, 400, { errorMessage: 'ssoTransferFailed' }]);
          expect(setCookie(refused, sessionCookieName(t.config))).toBeUndefined();
        }
        // The check a page makes first answers only the browser that started it, and says so.
        for (const cookies of [{}, elsewhere]) {
          expect((await postJson(t, TRANSFER_CHECK_URL, { token }, { cookies })).json()).toEqual({ errorMessage: 'ssoTransferFailed' });
        }
        const checked = await postJson(t, TRANSFER_CHECK_URL, { token }, { cookies: testBrowserCookies(t) });
        expect(checked.json()).toEqual({ email: base.email, boundToThisBrowser: true });
        // Refusals and the check spend nothing: the browser that started the sign-in still completes it.
        expect((await exchange(t, token)).statusCode).toBe(200);
      }
      expect((await listAuditEvents(t.db, { type: 'transfer.refused' })).length).toBeGreaterThanOrEqual(4);
    });

    it("lets only the app exchange a desktop client's token, never this site's own page, and binds the extension's as the web's", async () => {
      // The app holds no cookie of the browser, and its HTTP client says nothing of a page.
      const native = await startedAndKnown({ state: { clientKind: 'native' } });
      const token = landing(await postAcs(t, native.corp.urls.acs, signedResponse(native.base))).get('transferToken') ?? '';
      // A browser sent to /ssol/<the desktop token>: its page's call is refused.
      const pages: Array<Record<string, string>> = [{ 'sec-fetch-site': 'same-origin' }, { origin: new URL(t.config.publicUrl).origin }];
      for (const headers of pages) {
        const refused = await postJson(t, TRANSFER_URL, { token, deviceId: newDeviceId() }, { headers });
        expect(refused.json()).toEqual({ errorMessage: 'ssoTransferFailed' });
        expect((await postJson(t, TRANSFER_CHECK_URL, { token }, { headers })).json()).toEqual({ errorMessage: 'ssoTransferFailed' });
      }
      expect((await exchange(t, token, {})).statusCode).toBe(200);

      // A return address in an app's scheme (a local desktop build's) is a hand-off to that app too.
      for (const returnUrl of ['foyer-local://sso-done', 'foyer://ext/done']) {
        const app = await startedAndKnown({ state: { returnUrl } });
        const landed = landing(await postAcs(t, app.corp.urls.acs, signedResponse(app.base)));
        expect(landed.get('returnUrl')).toBe(returnUrl);
        const appToken = landed.get('transferToken') ?? '';
        expect((await postJson(t, TRANSFER_URL, { token: appToken, deviceId: newDeviceId() }, { headers: pages[0] })).json()).toEqual({
          errorMessage: 'ssoTransferFailed',
        });
        expect((await exchange(t, appToken, {})).statusCode, returnUrl).toBe(200);
      }

      // The browser extension's sign-in is bound like the web's: a starter cannot opt out.
      const chrome = await startedAndKnown({ state: { clientKind: 'chrome' } });
      const chromeToken = landing(await postAcs(t, chrome.corp.urls.acs, signedResponse(chrome.base))).get('transferToken') ?? '';
      expect((await exchange(t, chromeToken, {})).json()).toEqual({ errorMessage: 'ssoTransferFailed' });
      expect((await exchange(t, chromeToken)).statusCode).toBe(200);
    });

    it('keeps nothing of a sign-in whose transfer token cannot be written: no member, no identity, no audit of it', async () => {
      const { corp, email, base } = await startedAndKnown();
      const restore = await refuseInserts(t.db, 'email_tokens', "new.purpose = 'transfer'");
      try {
        const failed = await postAcs(t, corp.urls.acs, signedResponse(base));
        expect(String(failed.headers.location ?? '')).not.toContain('transferToken');
      } finally {
        await restore();
      }
      expect(await t.db.selectFrom('users').select('id').where('email_key', '=', email).executeTakeFirst()).toBeUndefined();
      const identities = await t.db.selectFrom('external_identities').select('subject').where('subject', '=', base.nameId).execute();
      expect(identities).toEqual([]);
      expect(await listAuditEvents(t.db, { emailKey: email, type: 'sso.signup' })).toEqual([]);
    });

    it('signs the same NameID in again and follows a new email of the organisation', async () => {
      const first = await startedAndKnown();
      landing(await postAcs(t, first.corp.urls.acs, signedResponse(first.base)));
      const again = await startSso(t, first.email);
      const request = readAuthnRequest(again.json<{ url: string }>().url);
      const renamed = first.corp.email('renamed');
      const params = landing(await postAcs(t, first.corp.urls.acs, signedResponse({ ...first.base, inResponseTo: request.id, email: renamed })));
      expect(params.get('transferToken')).not.toBeNull();
      expect(await t.db.selectFrom('users').select('email').where('email_key', '=', renamed).executeTakeFirst()).toBeDefined();
      expect(await t.db.selectFrom('users').select('id').where('email_key', '=', first.email).executeTakeFirst()).toBeUndefined();
    });

    it('signs a returning member in with a new transfer token that ends the unused earlier one, both audited', async () => {
      const first = await startedAndKnown();
      const earlier = landing(await postAcs(t, first.corp.urls.acs, signedResponse(first.base))).get('transferToken') ?? '';
      const user = await t.db.selectFrom('users').selectAll().where('email_key', '=', first.email).executeTakeFirstOrThrow();
      const issuer = `sso:${first.corp.connection.id}`;
      t.clock.advance(MINUTE);
      const again = await startSso(t, first.email);
      const inResponseTo = readAuthnRequest(again.json<{ url: string }>().url).id;
      const token =
        landing(await postAcs(t, first.corp.urls.acs, signedResponse({ ...first.base, inResponseTo, now: t.clock.now() }))).get('transferToken') ?? '';
      expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(token).not.toBe(earlier);

      expect((await exchange(t, earlier)).json()).toEqual({ errorMessage: 'ssoTransferFailed' });
      expect((await exchange(t, token)).statusCode).toBe(200);
      const identity = await t.db.selectFrom('external_identities').selectAll().where('issuer', '=', issuer).executeTakeFirstOrThrow();
      expect(identity).toMatchObject({ subject: first.base.nameId, user_id: user.id, last_used_at: t.clock.now() });
      expect(await t.db.selectFrom('users').select('id').where('org_id', '=', first.corp.org.id).execute()).toEqual([{ id: user.id }]);
      const signIns = await listAuditEvents(t.db, { emailKey: first.email, type: 'sso.signin' });
      expect(signIns.map((event) => [event.user_id, event.at, JSON.parse(event.detail ?? '{}')])).toEqual([
        [user.id, t.clock.now(), { connectionId: first.corp.connection.id }],
      ]);
      const issued = await listAuditEvents(t.db, { emailKey: first.email, type: 'transfer.issued' });
      expect(issued.map((event) => event.at)).toEqual([t.clock.now() - MINUTE, t.clock.now()]);
    });

    it("keeps nothing of a returning member's sign-in whose transfer token cannot be written: the earlier token still works", async () => {
      const first = await startedAndKnown();
      const earlier = landing(await postAcs(t, first.corp.urls.acs, signedResponse(first.base))).get('transferToken') ?? '';
      const issuer = `sso:${first.corp.connection.id}`;
      const before = await t.db.selectFrom('external_identities').selectAll().where('issuer', '=', issuer).executeTakeFirstOrThrow();
      t.clock.advance(MINUTE);
      const again = await startSso(t, first.email);
      const inResponseTo = readAuthnRequest(again.json<{ url: string }>().url).id;
      const restore = await refuseInserts(t.db, 'email_tokens', "new.purpose = 'transfer'");
      try {
        const failed = await postAcs(t, first.corp.urls.acs, signedResponse({ ...first.base, inResponseTo, now: t.clock.now() }));
        expect(String(failed.headers.location ?? '')).not.toContain('transferToken');
      } finally {
        await restore();
      }
      expect(await t.db.selectFrom('external_identities').selectAll().where('issuer', '=', issuer).executeTakeFirstOrThrow()).toEqual(before);
      expect(await listAuditEvents(t.db, { emailKey: first.email, type: 'sso.signin' })).toEqual([]);
      expect((await listAuditEvents(t.db, { emailKey: first.email, type: 'transfer.issued' })).length).toBe(1);
      expect((await exchange(t, earlier)).statusCode).toBe(200);
    });

    it('1001 for a known identity whose account was deactivated or left the organisation since', async () => {
      const other = await samlOrganization(t);
      for (const change of ['deactivated', 'otherOrg'] as const) {
        const first = await startedAndKnown();
        landing(await postAcs(t, first.corp.urls.acs, signedResponse(first.base)));
        await t.db
          .updateTable('users')
          .set(change === 'deactivated' ? { deactivated_at: t.clock.now() } : { org_id: other.org.id })
          .where('email_key', '=', first.email)
          .execute();
        const again = await startSso(t, first.email);
        const inResponseTo = readAuthnRequest(again.json<{ url: string }>().url).id;
        await postRefused(t, { id: first.corp.connection.id, acs: first.corp.urls.acs }, signedResponse({ ...first.base, inResponseTo }), '1001');
        expect(await listAuditEvents(t.db, { emailKey: first.email, type: 'sso.signin' })).toEqual([]);
      }
    });

    it('links an invited member of the organisation, verifying the account and ending the invitation link', async () => {
      const { corp, email, base } = await startedAndKnown();
      const { inviteMember } = await import('../organizations/invitations.service.js');
      const { user } = await inviteMember(t.deps, { org: corp.org.id, email }, CLI_META);
      landing(await postAcs(t, corp.urls.acs, signedResponse(base)));
      const linked = await t.db.selectFrom('users').selectAll().where('id', '=', user.id).executeTakeFirstOrThrow();
      expect(linked.email_verified_at).not.toBeNull();
      const open = await t.db
        .selectFrom('email_tokens')
        .select('id')
        .where('user_id', '=', user.id)
        .where('purpose', '=', 'invitation')
        .where('used_at', 'is', null)
        .execute();
      expect(open).toEqual([]);
      expect((await listAuditEvents(t.db, { emailKey: email, type: 'sso.linked' })).length).toBe(1);
    });

    it('links an existing verified member of the organisation: the same account, its password kept, one identity', async () => {
      const { corp, email, base } = await startedAndKnown();
      const { user } = await createTestUser(t, { email });
      await t.db.updateTable('users').set({ org_id: corp.org.id }).where('id', '=', user.id).execute();
      const usersBefore = await t.db.selectFrom('users').select('id').execute();
      expect(landing(await postAcs(t, corp.urls.acs, signedResponse(base))).get('transferToken')).not.toBeNull();
      expect(await t.db.selectFrom('users').select('id').execute()).toEqual(usersBefore);
      const linked = await t.db.selectFrom('users').selectAll().where('id', '=', user.id).executeTakeFirstOrThrow();
      expect(linked.password_hash).toBe(user.password_hash);
      const identities = await t.db.selectFrom('external_identities').selectAll().where('user_id', '=', user.id).execute();
      expect(identities).toMatchObject([{ issuer: `sso:${corp.connection.id}`, subject: base.nameId }]);
      expect((await listAuditEvents(t.db, { emailKey: email, type: 'sso.linked' })).length).toBe(1);
    });

    it("takes over an unverified account of no organisation at the organisation's address: a member, verified, the stranger's password and link dead", async () => {
      const { corp, email, base } = await startedAndKnown();
      // Someone signed up with the address before the company required SSO, and never verified it.
      await t.db.updateTable('organization_domains').set({ sso_required: 0 }).where('domain', '=', corp.domain).execute();
      const { token } = await signedUp(t, { email, firstName: 'Mallory', lastName: 'Stranger' });
      await t.db.updateTable('organization_domains').set({ sso_required: 1 }).where('domain', '=', corp.domain).execute();
      const stranger = await t.db.selectFrom('users').selectAll().where('email_key', '=', email).executeTakeFirstOrThrow();
      expect(stranger).toMatchObject({ org_id: null, email_verified_at: null });

      expect(landing(await postAcs(t, corp.urls.acs, signedResponse(base))).get('transferToken')).not.toBeNull();
      const taken = await t.db.selectFrom('users').selectAll().where('email_key', '=', email).executeTakeFirstOrThrow();
      expect(taken).toMatchObject({ id: stranger.id, org_id: corp.org.id, password_hash: null, first_name: 'Ada', last_name: 'Lovelace' });
      expect(taken.email_verified_at).not.toBeNull();
      // The stranger's verification link activates nothing, and their password opens nothing.
      const dead = await postJson(t, VERIFY_URL, { token, deviceId: newDeviceId() });
      expect(dead.json()).toEqual({ errorMessage: 'alreadyVerified' });
      expect((await postSignIn(t.app, { email, password: PASSWORD })).statusCode).not.toBe(200);
      expect((await listAuditEvents(t.db, { emailKey: email, type: 'sso.linked' })).map((event) => JSON.parse(event.detail ?? '{}'))).toMatchObject([
        { takeover: true },
      ]);
    });

    it('reads the email from a PKCS #9 emailAddress attribute, a FriendlyName, or a NameID of no stated format', async () => {
      const cases: Array<Partial<AssertionOptions>> = [
        { emailAttribute: { name: 'urn:oid:1.2.840.113549.1.9.1', friendlyName: 'email' } },
        { emailAttribute: { name: 'urn:oid:1.2.840.113549.1.9.1' } },
        { emailAttribute: { name: 'urn:example:directory:primary', friendlyName: 'mail' } },
        { email: null, nameIdFormat: 'urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified' },
        { email: null, nameIdFormat: null },
      ];
      for (const change of cases) {
        const { corp, email, base } = await startedAndKnown();
        const nameId = change.email === null ? email : base.nameId;
        expect(landing(await postAcs(t, corp.urls.acs, signedResponse({ ...base, nameId, ...change }))).get('transferToken')).not.toBeNull();
        const user = await t.db.selectFrom('users').select(['org_id', 'email']).where('email_key', '=', email).executeTakeFirstOrThrow();
        expect(user).toEqual({ org_id: corp.org.id, email });
      }
    });

    it('lands a native client with native=true and a web client on its allowed return address', async () => {
      const native = await startedAndKnown({ state: { clientKind: 'native' } });
      expect(landing(await postAcs(t, native.corp.urls.acs, signedResponse(native.base))).get('native')).toBe('true');
      const web = await startedAndKnown({ state: { returnUrl: '/home' } });
      expect(landing(await postAcs(t, web.corp.urls.acs, signedResponse(web.base))).get('returnUrl')).toBe('/home');
    });

    it('accepts a response signed with any configured certificate (rollover) and a signed response around a signed assertion', async () => {
      const rollover = await startedAndKnown({ metadata: idpMetadata({ certs: [IDP_KEYS.cert, ROLLOVER_KEYS.cert] }) });
      expect(
        landing(await postAcs(t, rollover.corp.urls.acs, signedResponse(rollover.base, { keys: ROLLOVER_KEYS }))).get('transferToken'),
      ).not.toBeNull();
      const both = await startedAndKnown();
      expect(landing(await postAcs(t, both.corp.urls.acs, signedResponse(both.base, { signResponse: true }))).get('transferToken')).not.toBeNull();
    });

    it('accepts timestamps within three minutes of skew', async () => {
      const early = await startedAndKnown();
      const now = t.clock.now();
      expect(
        landing(await postAcs(t, early.corp.urls.acs, signedResponse({ ...early.base, notBefore: now + 2 * MINUTE }))).get('transferToken'),
      ).not.toBeNull();
      const late = await startedAndKnown();
      const xml = signedResponse({ ...late.base, notBefore: now - 10 * MINUTE, notOnOrAfter: now - 2 * MINUTE });
      expect(landing(await postAcs(t, late.corp.urls.acs, xml)).get('transferToken')).not.toBeNull();
    });
  });

  describe('refusals of the account rules (point 3)', () => {
    it('1001: a member of another organisation, an account of no organisation, a deactivated member', async () => {
      const other = await samlOrganization(t);
      for (const setup of ['otherOrg', 'noOrg', 'deactivated'] as const) {
        const { corp, email, base } = await startedAndKnown();
        const { newUserRow, insertUser } = await import('../users/users.repo.js');
        const orgId = setup === 'otherOrg' ? other.org.id : setup === 'noOrg' ? null : corp.org.id;
        const user = newUserRow({ email, emailKey: email, verifiedAt: t.clock.now(), orgId, now: t.clock.now() });
        await insertUser(t.db, { ...user, deactivated_at: setup === 'deactivated' ? t.clock.now() : null });
        await postRefused(t, { id: corp.connection.id, acs: corp.urls.acs }, signedResponse(base), '1001');
      }
    });

    it("1001 for another organisation's domain, 1003 for an unclaimed domain or no email", async () => {
      const other = await samlOrganization(t);
      const cases: Array<[Partial<AssertionOptions>, string]> = [
        [{ email: other.email() }, '1001'],
        [{ email: uniqueEmail() }, '1003'],
        [{ email: null }, '1003'],
        // A NameID of no stated format that is no email (a username), and no email attribute.
        [{ email: null, nameIdFormat: 'urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified' }, '1003'],
        [{ email: null, nameIdFormat: null }, '1003'],
      ];
      for (const [change, code] of cases) {
        const { corp, base } = await startedAndKnown();
        await postRefused(t, { id: corp.connection.id, acs: corp.urls.acs }, signedResponse({ ...base, ...change }), code);
      }
    });

    it('1004: a known identity whose new email belongs to another account', async () => {
      const first = await startedAndKnown();
      landing(await postAcs(t, first.corp.urls.acs, signedResponse(first.base)));
      const taken = first.corp.email('taken');
      const second = await startSso(t, taken);
      landing(
        await postAcs(
          t,
          first.corp.urls.acs,
          signedResponse({ ...first.base, nameId: 'someone-else', email: taken, inResponseTo: readAuthnRequest(second.json<{ url: string }>().url).id }),
        ),
      );
      const third = await startSso(t, first.email);
      const xml = signedResponse({ ...first.base, email: taken, inResponseTo: readAuthnRequest(third.json<{ url: string }>().url).id });
      await postRefused(t, { id: first.corp.connection.id, acs: first.corp.urls.acs }, xml, '1004');
    });

    it('a known identity whose provider asserts no email this time signs in to its account, its email unchanged', async () => {
      const first = await startedAndKnown();
      expect(landing(await postAcs(t, first.corp.urls.acs, signedResponse(first.base))).get('transferToken')).not.toBeNull();
      const again = await startSso(t, first.email);
      const xml = signedResponse({ ...first.base, email: null, inResponseTo: readAuthnRequest(again.json<{ url: string }>().url).id });
      expect(landing(await postAcs(t, first.corp.urls.acs, xml)).get('transferToken')).not.toBeNull();
      const user = await t.db.selectFrom('users').select('email').where('email_key', '=', first.email).executeTakeFirstOrThrow();
      expect(user.email).toBe(first.email);
    });

    it('1005: a response for a connection that was removed', async () => {
      const { corp, base } = await startedAndKnown();
      const { removeConnection } = await import('./sso.connections.js');
      await removeConnection(t.deps, { org: corp.org.id }, CLI_META);
      await postRefused(t, { id: corp.connection.id, acs: corp.urls.acs }, signedResponse(base), '1005');
    });

    it('404 and 1005 for a connection id no connection can have (control characters, other alphabets), never a 500', async () => {
      const { base } = await startedAndKnown();
      const form = new URLSearchParams({ SAMLResponse: encode(signedResponse(base)) }).toString();
      for (const id of ['%00', 'sso_a%00b', 'a%01b', '%7F', '%C2%85', '%E2%80%A8', 'sso_%C3%A9t%C3%A9', 'a.b', '%20']) {
        const metadata = await t.app.inject({ method: 'GET', url: `/sso/saml/${id}/metadata` });
        expect(metadata.statusCode, id).toBe(404);
        expect(metadata.json(), id).toEqual({ errorMessage: 'notFound' });
        const acs = await t.app.inject({
          method: 'POST',
          url: `/sso/saml/${id}/acs`,
          payload: form,
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
        });
        expect(landing(acs).get('code'), id).toBe('1005');
        const callback = await t.app.inject({ method: 'GET', url: `/sso/oidc/${id}/callback?code=c&state=s` });
        expect(landing(callback).get('code'), id).toBe('1005');
      }
    });
  });

  describe('forged, tampered and replayed responses: 1002 and an audit entry (point 4)', () => {
    it('refuses an unsigned assertion, and an unsigned assertion inside a signed response', async () => {
      const { corp, base } = await startedAndKnown();
      await refused(corp.connection.id, responseXml(base, assertionXml(base)), 'not signed');
      const response = responseXml(base, assertionXml(base));
      await refused(corp.connection.id, sign(response, idOf(response, 'Response'), IDP_KEYS), 'not signed');
    });

    it('refuses a signature by another key, even with its certificate in KeyInfo', async () => {
      const { corp, base } = await startedAndKnown();
      await refused(corp.connection.id, signedResponse(base, { keys: ATTACKER_KEYS }), 'Invalid signature');
      const assertion = assertionXml(base);
      const signed = sign(assertion, idOf(assertion, 'Assertion'), ATTACKER_KEYS, { keyInfoCert: ATTACKER_KEYS.cert });
      await refused(corp.connection.id, responseXml(base, signed));
    });

    it('refuses a signed assertion altered after signing', async () => {
      const { corp, base } = await startedAndKnown();
      const xml = signedResponse(base).replace(`>${String(base.email)}<`, `>ceo@${corp.domain}<`);
      expect(xml).toContain(`ceo@${corp.domain}`);
      await refused(corp.connection.id, xml, 'Invalid signature');
    });

    it('refuses XML signature wrapping: the signed assertion hidden in Extensions, in the Signature, or beside a forged one', async () => {
      const { corp, base } = await startedAndKnown();
      const genuine = assertionXml(base);
      const signedGenuine = sign(genuine, idOf(genuine, 'Assertion'), IDP_KEYS);
      const forged = assertionXml({ ...base, email: `ceo@${corp.domain}`, nameId: 'ceo' });
      const forgedSameId = forged.replace(/ID="[^"]+"/, `ID="${idOf(genuine, 'Assertion')}"`);
      const signature = /<(?:ds:)?Signature[\s\S]*<\/(?:ds:)?Signature>/.exec(signedGenuine)?.[0] ?? '';
      expect(signature).not.toBe('');
      const variants = [
        // XSW: original in Extensions, forged one read by the application
        responseXml(base, `<samlp:Extensions>${signedGenuine}</samlp:Extensions>${forged}`),
        // forged first, the genuine signed assertion after it
        responseXml(base, forged + signedGenuine),
        responseXml(base, signedGenuine + forged),
        // the forged assertion carries the genuine ID and the genuine signature, the original inside the signature's Object
        responseXml(
          base,
          forgedSameId.replace(
            '</saml:Issuer>',
            `</saml:Issuer>${signature.replace(/<\/(ds:)?Signature>$/, (end) => `<ds:Object xmlns:ds="http://www.w3.org/2000/09/xmldsig#">${signedGenuine}</ds:Object>${end}`)}`,
          ),
        ),
        // the forged assertion wraps the genuine one
        responseXml(base, forged.replace('</saml:Issuer>', `</saml:Issuer>${signedGenuine}`)),
        // the forged assertion with the genuine signature copied in, the original gone
        responseXml(base, forgedSameId.replace('</saml:Issuer>', `</saml:Issuer>${signature}`)),
      ];
      for (const xml of variants) await refused(corp.connection.id, xml);
    });

    it('refuses a signature over another element than the assertion it sits in', async () => {
      const { corp, base } = await startedAndKnown();
      const assertion = assertionXml(base);
      const response = responseXml(base, assertion);
      await refused(
        corp.connection.id,
        sign(response, idOf(response, 'Response'), IDP_KEYS, { placeIn: idOf(assertion, 'Assertion') }),
        'a signature does not reference its own parent',
      );
    });

    it('refuses a second assertion, even when both are signed', async () => {
      const { corp, base } = await startedAndKnown();
      const one = assertionXml(base);
      const two = assertionXml({ ...base, email: `ceo@${corp.domain}` });
      await refused(corp.connection.id, responseXml(base, sign(one, idOf(one, 'Assertion'), IDP_KEYS) + sign(two, idOf(two, 'Assertion'), IDP_KEYS)));
    });

    it('refuses a comment inside the NameID and a DOCTYPE or entity', async () => {
      const { corp, base } = await startedAndKnown();
      const commented = assertionXml({ ...base, rawNameId: `ceo@${corp.domain}<!---->.evil.example` });
      await refused(corp.connection.id, responseXml(base, sign(commented, idOf(commented, 'Assertion'), IDP_KEYS)), 'comment');
      const signed = signedResponse(base);
      await refused(corp.connection.id, `<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x "ceo">]>${signed}`);
      await refused(corp.connection.id, `<!DOCTYPE r SYSTEM "http://evil.example/x.dtd">${signed}`);
    });

    it('refuses a wrong Audience, Destination, Recipient or Issuer', async () => {
      const { corp, base } = await startedAndKnown();
      const cases: Array<[Partial<AssertionOptions>, string]> = [
        [{ audience: 'https://other-sp.example/metadata' }, 'audience'],
        [{ destination: 'https://other-sp.example/acs' }, 'Destination'],
        [{ recipient: 'https://other-sp.example/acs' }, 'Recipient'],
        [{ issuer: 'https://evil.example/idp' }, 'the response names another issuer'],
      ];
      for (const [change, reason] of cases) await refused(corp.connection.id, signedResponse({ ...base, ...change }), reason);
      // The assertion's own Issuer is checked too, whatever the unsigned response says.
      const assertion = assertionXml({ ...base, issuer: 'https://evil.example/idp' });
      await refused(corp.connection.id, responseXml(base, sign(assertion, idOf(assertion, 'Assertion'), IDP_KEYS)), 'the assertion names another issuer');
    });

    it('refuses an assertion expired or not yet valid by more than three minutes', async () => {
      const { corp, base } = await startedAndKnown();
      const now = t.clock.now();
      await refused(corp.connection.id, signedResponse({ ...base, notBefore: now - 10 * MINUTE, notOnOrAfter: now - 3 * MINUTE - 1 }), 'expired');
      await refused(corp.connection.id, signedResponse({ ...base, notBefore: now + 3 * MINUTE + 1000 }), 'not yet valid');
    });

    it('refuses an InResponseTo that names no request, a spent one, an expired one, or another connection’s', async () => {
      const a = await startedAndKnown();
      await refused(a.corp.connection.id, signedResponse({ ...a.base, inResponseTo: newId() }));
      landing(await postAcs(t, a.corp.urls.acs, signedResponse(a.base)));
      await refused(a.corp.connection.id, signedResponse({ ...a.base, nameId: 'fresh', assertionId: newId() }));

      const b = await startedAndKnown();
      await refused(a.corp.connection.id, signedResponse({ ...a.base, inResponseTo: b.request.id }));

      t.clock.advance(10 * MINUTE + 1);
      await refused(b.corp.connection.id, signedResponse({ ...b.base, now: t.clock.now() }));
    });

    it('refuses the same assertion posted again, to this instance or another one', async () => {
      // Unsolicited responses name no request, so only the replay cache stands between a captured
      // response and a second sign-in.
      const { corp, base } = await startedAndKnown({ allowUnsolicited: true });
      const xml = signedResponse({ ...base, inResponseTo: null });
      landing(await postAcs(t, corp.urls.acs, xml));
      await refused(corp.connection.id, xml, 'replayed');
      const other = await buildApp({ config: t.config, db: t.db, clock: t.clock, passwords: t.app.passwords });
      try {
        const response = await other.inject({
          method: 'POST',
          url: new URL(corp.urls.acs).pathname,
          payload: new URLSearchParams({ SAMLResponse: Buffer.from(xml).toString('base64') }).toString(),
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
        });
        await expectRefused(t, corp.connection.id, response, '1002', 'replayed');
      } finally {
        await other.close();
      }
      // A solicited response posted twice fails on its spent request before the cache is asked.
      const solicited = await startedAndKnown();
      const once = signedResponse(solicited.base);
      landing(await postAcs(t, solicited.corp.urls.acs, once));
      await refused(solicited.corp.connection.id, once, 'InResponseTo');
    });

    it('refuses an unsolicited response unless the connection accepts them, and then follows only an allowed RelayState', async () => {
      const strict = await startedAndKnown();
      await refused(strict.corp.connection.id, signedResponse({ ...strict.base, inResponseTo: null }), 'unsolicited');

      const open = await startedAndKnown({ allowUnsolicited: true });
      const kept = landing(await postAcs(t, open.corp.urls.acs, signedResponse({ ...open.base, inResponseTo: null }), '/home'));
      expect(kept.get('returnUrl')).toBe('/home');
      const dropped = landing(await postAcs(t, open.corp.urls.acs, signedResponse({ ...open.base, inResponseTo: null }), 'https://evil.example/'));
      expect(dropped.get('transferToken')).not.toBeNull();
      expect(dropped.get('returnUrl')).toBeNull();
    });

    it('refuses garbage: no SAMLResponse, not base64, not XML', async () => {
      const { corp } = await startedAndKnown();
      const url = new URL(corp.urls.acs).pathname;
      const post = (payload: string) => t.app.inject({ method: 'POST', url, payload, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
      await expectRefused(t, corp.connection.id, await post(''), '1002');
      await expectRefused(t, corp.connection.id, await post('SAMLResponse=%%%'), '1002');
      await expectRefused(t, corp.connection.id, await post(`SAMLResponse=${encodeURIComponent(Buffer.from('<not-xml').toString('base64'))}`), '1002');
    });
  });
});

describe.skipIf(dbUnavailable)('company SSO in a deployed environment with COOKIE_DOMAIN', () => {
  it('keeps the binding cookie host-only: only this service reads it, so sibling sites never receive it', async () => {
    const t = await createTestApp({
      env: { FOYER_ENV: 'staging', PUBLIC_URL: 'https://auth.foyer.app', COOKIE_DOMAIN: 'foyer.app', ARGON2_MEMORY_KIB: '7168', ARGON2_TIME: '5' },
    });
    try {
      const corp = await samlOrganization(t);
      const started = await postJson(t, SSO_START_URL, { email: corp.email() });
      expect(started.statusCode, started.body).toBe(200);
      const binding = setCookie(started, bindingCookieName(t.config));
      expect(binding).toMatchObject({ name: 'sso_binding_staging', secure: true, httpOnly: true, sameSite: 'Strict' });
      expect(binding?.domain).toBeUndefined();
    } finally {
      await t.close();
    }
  });

  it('refuses a form-encoded start call (415): only what a provider posts takes a form', async () => {
    const t = await createTestApp();
    try {
      const corp = await samlOrganization(t);
      const form = await t.app.inject({
        method: 'POST',
        url: SSO_START_URL,
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-xsrf-token': 'x'.repeat(43) },
        cookies: { 'XSRF-TOKEN': 'x'.repeat(43) },
        payload: new URLSearchParams({ email: corp.email() }).toString(),
      });
      expect(form.statusCode).toBe(415);
      expect(form.json()).toEqual({ errorMessage: 'invalidRequest' });
    } finally {
      await t.close();
    }
  });
});
