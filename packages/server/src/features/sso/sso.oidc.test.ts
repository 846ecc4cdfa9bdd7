import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { passConsent } from '../../../test/google.js';
import { dbUnavailable, getSession, MINUTE, newDeviceId, useTestApp } from '../../../test/helpers.js';
import { randomToken, sha256Hex } from '../../lib/crypto.js';
import { exchange, expectRefused, landing, startSso } from '../../../test/sso.js';
import { postJson } from '../../../test/account-entry.js';
import { CLI_META } from '../audit/audit.service.js';
import { listAuditEvents } from '../audit/audit.repo.js';
import { startStandIn, standInSubject, type StandIn } from '../google/stand-in.js';
import { createOrganization } from '../organizations/organizations.service.js';
import { testConfig } from '../../../test/helpers.js';
import { insertConnection } from './sso.repo.js';
import { sealClientSecret } from './sso.secret.js';
import { ssoUrls } from './sso.urls.js';

/**
 * Company SSO over OpenID Connect against a real provider (oidc-provider, the local stand-in of
 * decision 0019). The provider must know the redirect URI before it starts, so the connection's
 * id is chosen here and its row written as `sso add-oidc` writes it.
 */
const CONNECTION_ID = `sso_oidc${randomBytes(6).toString('hex')}`;
const CALLBACK = ssoUrls(testConfig(), CONNECTION_ID).oidcCallback;

describe.skipIf(dbUnavailable)('company SSO over OpenID Connect (decision 0022)', () => {
  const t = useTestApp();
  let provider: StandIn;
  const domain = `oidc-${randomBytes(4).toString('hex')}.example`;

  beforeAll(async () => {
    if (dbUnavailable) return;
    provider = await startStandIn({ host: '127.0.0.1', port: 0, redirectUris: [CALLBACK] });
  });
  afterAll(async () => {
    await provider?.close();
  });

  let connected = false;
  async function connect(): Promise<void> {
    if (connected) return;
    connected = true;
    const org = await createOrganization(t.deps, { name: `OIDC ${domain}`, domain, ssoRequired: true }, CLI_META);
    await insertConnection(t.db, {
      id: CONNECTION_ID,
      org_id: org.id,
      kind: 'oidc',
      saml_idp_entity_id: null,
      saml_idp_sso_url: null,
      saml_idp_certs: null,
      saml_allow_unsolicited: 0,
      oidc_issuer: provider.issuer,
      oidc_client_id: provider.clientId,
      oidc_client_secret: sealClientSecret(t.config, CONNECTION_ID, provider.clientSecret),
      created_at: t.clock.now(),
    });
  }

  async function consentUrl(email: string, state?: object): Promise<string> {
    await connect();
    const response = await startSso(t, email, state);
    expect(response.statusCode, response.body).toBe(200);
    return response.json<{ url: string }>().url;
  }

  const callback = (query: Record<string, string>) =>
    t.app.inject({ method: 'GET', url: `${new URL(CALLBACK).pathname}?${new URLSearchParams(query).toString()}` });

  it('signs a new member in through the provider: discovery, code + PKCE, state, nonce, the ID token validated', async () => {
    const email = `grace@${domain}`;
    const url = new URL(await consentUrl(email, { clientKind: 'native' }));
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('nonce')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(url.searchParams.get('redirect_uri')).toBe(CALLBACK);
    const outcome = await passConsent(url.href, { email }, CALLBACK);
    if (!('code' in outcome)) throw new Error(outcome.error);
    const params = landing(await callback({ code: outcome.code, state: outcome.state }));
    expect(params.get('native')).toBe('true');
    const token = params.get('transferToken') ?? '';
    const deviceId = newDeviceId();
    const exchanged = await postJson(t, '/api/account/exchangeSSOTransferToken', { token, deviceId });
    expect((await getSession(t, exchanged.json<{ otter: string }>().otter, deviceId)).statusCode).toBe(200);
    const identity = await t.db.selectFrom('external_identities').selectAll().where('issuer', '=', `sso:${CONNECTION_ID}`).executeTakeFirstOrThrow();
    expect(identity.subject).toBe(standInSubject(email));
  });

  it('refuses with 1002 a replayed code and state, an unknown state, and the provider’s own error', async () => {
    const email = `ada@${domain}`;
    const outcome = await passConsent(await consentUrl(email), { email }, CALLBACK);
    if (!('code' in outcome)) throw new Error(outcome.error);
    expect(landing(await callback({ code: outcome.code, state: outcome.state })).get('transferToken')).not.toBeNull();
    await expectRefused(t, CONNECTION_ID, await callback({ code: outcome.code, state: outcome.state }), '1002', 'state names no waiting request');
    await expectRefused(
      t,
      CONNECTION_ID,
      await callback({ code: 'x', state: randomBytes(32).toString('base64url') }),
      '1002',
      'state names no waiting request',
    );

    const cancelled = await passConsent(await consentUrl(email), 'cancel', CALLBACK);
    if (!('error' in cancelled)) throw new Error('expected a refusal');
    await expectRefused(t, CONNECTION_ID, await callback({ error: 'access_denied', state: cancelled.state }), '1002', 'the provider answered');
  });

  it('writes the request with its audit row, and removes expired requests at most once a minute', async () => {
    await connect();
    const expiredRow = (state: string) => ({
      id: sha256Hex(state),
      connection_id: CONNECTION_ID,
      client_kind: null,
      return_url: null,
      nonce: randomToken(),
      code_verifier: randomToken(),
      created_at: t.clock.now() - 11 * MINUTE,
      expires_at: t.clock.now() - 1,
      used_at: null,
    });
    const present = async (state: string) => (await t.db.selectFrom('sso_requests').select('id').where('id', '=', sha256Hex(state)).execute()).length;
    const started = async () => (await t.db.selectFrom('audit_events').select('id').where('type', '=', 'sso.started').execute()).length;
    // Past any sweep an earlier test made.
    t.clock.advance(MINUTE + 1000);
    const expired = randomToken();
    await t.db.insertInto('sso_requests').values(expiredRow(expired)).execute();
    const before = await started();
    await consentUrl(`ada@${domain}`);
    expect(await started()).toBe(before + 1);
    expect(await present(expired)).toBe(0);

    // Within the minute an expired request stays, and its state is still refused.
    const lingering = randomToken();
    await t.db.insertInto('sso_requests').values(expiredRow(lingering)).execute();
    t.clock.advance(MINUTE - 1000);
    const outcome = await passConsent(await consentUrl(`ada@${domain}`), { email: `ada@${domain}` }, CALLBACK);
    if (!('code' in outcome)) throw new Error(outcome.error);
    expect(await present(lingering)).toBe(1);
    await expectRefused(t, CONNECTION_ID, await callback({ code: outcome.code, state: lingering }), '1002', 'state names no waiting request');

    t.clock.advance(2000);
    await consentUrl(`ada@${domain}`);
    expect(await present(lingering)).toBe(0);
  });

  it('refuses with 1002 a code exchanged under another request’s state (its PKCE verifier and nonce do not match)', async () => {
    const email = `alan@${domain}`;
    const first = await passConsent(await consentUrl(email), { email }, CALLBACK);
    const second = await passConsent(await consentUrl(email), { email }, CALLBACK);
    if (!('code' in first) || !('code' in second)) throw new Error('consent failed');
    await expectRefused(t, CONNECTION_ID, await callback({ code: first.code, state: second.state }), '1002', 'refused');
  });

  it('refuses with 1003 an email outside the organisation’s domains, and 1005 when the provider cannot be reached', async () => {
    const outsider = `mallory@elsewhere-${randomBytes(3).toString('hex')}.example`;
    const outcome = await passConsent(await consentUrl(`m@${domain}`), { email: outsider }, CALLBACK);
    if (!('code' in outcome)) throw new Error(outcome.error);
    await expectRefused(t, CONNECTION_ID, await callback({ code: outcome.code, state: outcome.state }), '1003');

    // An issuer nobody answers at: the start call says it does not recognise the email (spec §8)
    // and the audit log says why; a callback for a connection that is gone lands on 1005.
    const down = `down-${randomBytes(4).toString('hex')}.example`;
    const org = await createOrganization(t.deps, { name: `Down ${down}`, domain: down, ssoRequired: true }, CLI_META);
    const { addOidcConnection } = await import('./sso.connections.js');
    const { connection } = await addOidcConnection(t.deps, { org: org.id, issuer: 'http://127.0.0.1:9/', clientId: 'c', clientSecret: 's' }, CLI_META);
    const start = await startSso(t, `a@${down}`);
    expect(start.statusCode).toBe(404);
    expect(start.json()).toEqual({ errorMessage: 'ssoNotRecognized' });
    const audited = await t.db.selectFrom('audit_events').select('detail').where('type', '=', 'sso.refused').execute();
    expect(audited.some((row) => (row.detail ?? '').includes(`"code":"1005"`) && (row.detail ?? '').includes(connection.id))).toBe(true);
    const { removeConnection } = await import('./sso.connections.js');
    await removeConnection(t.deps, { org: org.id }, CLI_META);
    const gone = await t.app.inject({ method: 'GET', url: `${new URL(ssoUrls(t.config, connection.id).oidcCallback).pathname}?code=x&state=y` });
    expect(landing(gone).get('code')).toBe('1005');
  });

  it('answers exchangeSSOTransferToken once per token, and only to the browser that started the sign-in', async () => {
    const email = `linus@${domain}`;
    const outcome = await passConsent(await consentUrl(email), { email }, CALLBACK);
    if (!('code' in outcome)) throw new Error(outcome.error);
    // The callback address opened in another browser (login CSRF): its token is no use there.
    const token = landing(await callback({ code: outcome.code, state: outcome.state })).get('transferToken') ?? '';
    expect((await exchange(t, token, {})).json()).toEqual({ errorMessage: 'ssoTransferFailed' });
    expect((await exchange(t, token)).statusCode).toBe(200);
    expect((await exchange(t, token)).json()).toEqual({ errorMessage: 'ssoTransferFailed' });
  });

  it('signs a returning member in again: the same account, a new transfer token that ends the unused earlier one', async () => {
    const email = `barbara@${domain}`;
    const signIn = async () => {
      const outcome = await passConsent(await consentUrl(email), { email }, CALLBACK);
      if (!('code' in outcome)) throw new Error(outcome.error);
      return landing(await callback({ code: outcome.code, state: outcome.state })).get('transferToken') ?? '';
    };
    const earlier = await signIn();
    const [account] = await t.db.selectFrom('users').select('id').where('email_key', '=', email).execute();
    const token = await signIn();
    expect(await t.db.selectFrom('users').select('id').where('email_key', '=', email).execute()).toEqual([account]);
    expect((await exchange(t, earlier)).json()).toEqual({ errorMessage: 'ssoTransferFailed' });
    expect((await exchange(t, token)).statusCode).toBe(200);
    const signIns = await listAuditEvents(t.db, { emailKey: email, type: 'sso.signin' });
    expect(signIns.map((event) => [event.user_id, JSON.parse(event.detail ?? '{}')])).toEqual([[account?.id, { connectionId: CONNECTION_ID }]]);
    expect((await listAuditEvents(t.db, { emailKey: email, type: 'transfer.issued' })).length).toBe(2);
  });
});
