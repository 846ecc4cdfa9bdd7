import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dbUnavailable, useTestApp } from '../../../test/helpers.js';
import { OidcForger, type IdTokenForgery } from '../../../test/oidc-forger.js';
import { expectRefused, landing, startSso, writesNoAccount } from '../../../test/sso.js';
import { CLI_META } from '../audit/audit.service.js';
import { createOrganization } from '../organizations/organizations.service.js';
import { insertConnection } from './sso.repo.js';
import { sealClientSecret } from './sso.secret.js';
import { ssoUrls } from './sso.urls.js';

/**
 * Issue 11 point 4 on OpenID Connect: the callback refuses with 1002 (audited, nothing written)
 * every ID token a provider or an attacker in its place could hand back that is not the one
 * this request asked for: wrong issuer, audience or authorised party, expired, without or with
 * another nonce, signed by a key the issuer does not publish, unsigned (`none`), or HS256 keyed
 * with the client secret or the issuer's public key where RS256 is expected; and a state of
 * another connection or none, and a code redeemed without its request's PKCE verifier.
 */
describe.skipIf(dbUnavailable)('company SSO over OpenID Connect: forged ID tokens and callbacks', () => {
  // A 3 s request deadline: the provider's calls then time out after 2 s (providerTimeoutS).
  const t = useTestApp({ env: { REQUEST_TIMEOUT_MS: '3000' } });
  const provider = new OidcForger();
  const domain = `oidcf-${randomBytes(4).toString('hex')}.example`;
  const connectionIds = [`sso_f${randomBytes(6).toString('hex')}`, `sso_g${randomBytes(6).toString('hex')}`] as const;
  const [mainId, otherId] = connectionIds;

  beforeAll(async () => {
    if (!dbUnavailable) await provider.start();
  });
  afterAll(async () => {
    if (!dbUnavailable) await provider.stop();
  });

  let connected = false;
  /** Two organisations, each with an OIDC connection to the same provider (the second for cross-connection state). */
  async function connect(): Promise<void> {
    if (connected) return;
    connected = true;
    for (const [index, id] of connectionIds.entries()) {
      const orgDomain = index === 0 ? domain : `other-${domain}`;
      const org = await createOrganization(t.deps, { name: `Forged ${orgDomain}`, domain: orgDomain, ssoRequired: true }, CLI_META);
      await insertConnection(t.db, {
        id,
        org_id: org.id,
        kind: 'oidc',
        saml_idp_entity_id: null,
        saml_idp_sso_url: null,
        saml_idp_certs: null,
        saml_allow_unsolicited: 0,
        oidc_issuer: provider.issuer,
        oidc_client_id: provider.clientId,
        oidc_client_secret: sealClientSecret(t.config, id, provider.clientSecret),
        created_at: t.clock.now(),
      });
    }
  }

  /** A started sign-in at the provider, consented: the code and state the browser brings back. */
  async function consented(email: string) {
    await connect();
    const response = await startSso(t, email);
    expect(response.statusCode, response.body).toBe(200);
    provider.email = email;
    return provider.authorize(response.json<{ url: string }>().url);
  }

  const callback = (connectionId: string, query: Record<string, string>) =>
    t.app.inject({ method: 'GET', url: `${new URL(ssoUrls(t.config, connectionId).oidcCallback).pathname}?${new URLSearchParams(query).toString()}` });

  async function refused(connectionId: string, query: Record<string, string>, reason: string): Promise<void> {
    await expectRefused(t, connectionId, await writesNoAccount(t, () => callback(connectionId, query)), '1002', reason);
  }

  it('lands on 1005, not 1002, when the token endpoint does not answer in time', async () => {
    provider.forgery = 'honest';
    const { code, state } = await consented(`slow@${domain}`);
    provider.tokenDelayMs = 3000;
    try {
      await expectRefused(t, mainId, await writesNoAccount(t, () => callback(mainId, { code, state })), '1005', 'cannot be reached');
    } finally {
      provider.tokenDelayMs = 0;
    }
  });

  it('signs in with an honest ID token, having sent the PKCE verifier of the challenge it made', async () => {
    provider.forgery = 'honest';
    const { code, state, challenge } = await consented(`honest@${domain}`);
    expect(landing(await callback(mainId, { code, state })).get('transferToken')).not.toBeNull();
    const sent = provider.tokenRequests.find((request) => request.code === code);
    expect(
      createHash('sha256')
        .update(sent?.codeVerifier ?? '')
        .digest('base64url'),
    ).toBe(challenge);
  });

  const forgeries: Array<[IdTokenForgery, string]> = [
    ['wrongIssuer', '"iss"'],
    ['wrongAudience', '"aud"'],
    ['anotherClientAuthorized', '"azp"'],
    ['expired', '"exp"'],
    ['wrongNonce', '"nonce"'],
    ['noNonce', '"nonce"'],
    ['foreignKey', 'JWT signature verification failed'],
    ['algNone', 'unsupported JWS "alg" identifier'],
    ['hs256ClientSecret', 'unsupported JWS algorithm'],
    ['hs256PublicKey', 'unsupported JWS algorithm'],
  ];
  it.each(forgeries)('refuses an ID token forged as %s', async (forgery, reason) => {
    const { code, state } = await consented(`${forgery.toLowerCase()}@${domain}`);
    provider.forgery = forgery;
    try {
      await refused(mainId, { code, state }, reason);
    } finally {
      provider.forgery = 'honest';
    }
  });

  it.each([
    ['a blank subject', { sub: '' }, 'no usable subject'],
    ['a subject of white space', { sub: '  ' }, 'no usable subject'],
    ['a subject holding NUL', { sub: 'a\u0000b' }, 'no usable subject'],
  ])('refuses an ID token with %s (1002, audited, no account), on either database', async (_what, claims, reason) => {
    const { code, state } = await consented(`claims@${domain}`);
    provider.claims = claims;
    try {
      await refused(mainId, { code, state }, reason);
    } finally {
      provider.claims = {};
    }
  });

  it('lands a person not yet known on 1003 when the ID token names no valid email (audited, no account); a known member signs in without one', async () => {
    for (const email of [`nul\u0000@${domain}`, 'not an email at all']) {
      const { code, state } = await consented(`unknown-${randomBytes(3).toString('hex')}@${domain}`);
      provider.claims = { email };
      try {
        await expectRefused(t, mainId, await writesNoAccount(t, () => callback(mainId, { code, state })), '1003', 'no usable email');
      } finally {
        provider.claims = {};
      }
    }

    // The identity is the connection's subject: the provider leaving the email out later changes nothing.
    const known = `known-${randomBytes(3).toString('hex')}@${domain}`;
    const first = await consented(known);
    expect(landing(await callback(mainId, { code: first.code, state: first.state })).get('transferToken')).not.toBeNull();
    const again = await consented(known);
    provider.claims = { email: 'not an email at all' };
    try {
      expect(landing(await callback(mainId, { code: again.code, state: again.state })).get('transferToken')).not.toBeNull();
    } finally {
      provider.claims = {};
    }
    const user = await t.db.selectFrom('users').select('email').where('email_key', '=', known).executeTakeFirstOrThrow();
    expect(user.email).toBe(known);
  });

  it('takes an email the provider says it did not verify as no email: no link, takeover or new member (1003); a known member keeps their address', async () => {
    const member = `verified-${randomBytes(3).toString('hex')}@${domain}`;
    const first = await consented(member);
    expect(landing(await callback(mainId, { code: first.code, state: first.state })).get('transferToken')).not.toBeNull();
    const account = await t.db.selectFrom('users').select('id').where('email_key', '=', member).executeTakeFirstOrThrow();
    const identities = () => t.db.selectFrom('external_identities').select('subject').where('user_id', '=', account.id).execute();
    expect(await identities()).toHaveLength(1);

    // Another subject of the same provider naming the member's address, unverified: the address
    // could be anyone's, so it neither links to the member nor signs in as them.
    for (const emailVerified of [false, 'false', 1, null]) {
      const { code, state } = await consented(member);
      provider.claims = { sub: `intruder-${randomBytes(4).toString('hex')}`, email_verified: emailVerified };
      try {
        await expectRefused(t, mainId, await writesNoAccount(t, () => callback(mainId, { code, state })), '1003', 'did not verify');
      } finally {
        provider.claims = {};
      }
    }
    expect(await identities()).toHaveLength(1);

    // A person not yet known, unverified: no member provisioned.
    const stranger = `unverified-${randomBytes(3).toString('hex')}@${domain}`;
    const unverified = await consented(stranger);
    provider.claims = { email_verified: false };
    try {
      await expectRefused(t, mainId, await writesNoAccount(t, () => callback(mainId, unverified)), '1003', 'did not verify');
    } finally {
      provider.claims = {};
    }

    // The member's own subject, with a new unverified address: signed in, the address kept.
    const again = await consented(member);
    provider.claims = { email: `moved-${randomBytes(3).toString('hex')}@${domain}`, email_verified: false };
    try {
      expect(landing(await callback(mainId, { code: again.code, state: again.state })).get('transferToken')).not.toBeNull();
    } finally {
      provider.claims = {};
    }
    expect((await t.db.selectFrom('users').select('email').where('id', '=', account.id).executeTakeFirstOrThrow()).email).toBe(member);

    // Without the claim at all (Entra ID sends none) the address is the provider's word, as before.
    const entra = `entra-${randomBytes(3).toString('hex')}@${domain}`;
    const silent = await consented(entra);
    provider.claims = { email_verified: undefined };
    try {
      expect(landing(await callback(mainId, { code: silent.code, state: silent.state })).get('transferToken')).not.toBeNull();
    } finally {
      provider.claims = {};
    }
    const provisioned = await t.db.selectFrom('users').select('email_verified_at').where('email_key', '=', entra).executeTakeFirstOrThrow();
    expect(provisioned.email_verified_at).not.toBeNull();
  });

  it('signs a member in without a name that holds a control character, and cuts a long one to 100 characters', async () => {
    const email = `named-${randomBytes(3).toString('hex')}@${domain}`;
    const { code, state } = await consented(email);
    provider.claims = { given_name: 'A\u0000B', family_name: 'L'.repeat(5000) };
    try {
      expect(landing(await callback(mainId, { code, state })).get('transferToken')).not.toBeNull();
    } finally {
      provider.claims = {};
    }
    const user = await t.db.selectFrom('users').select(['first_name', 'last_name']).where('email_key', '=', email).executeTakeFirstOrThrow();
    expect(user).toEqual({ first_name: null, last_name: 'L'.repeat(100) });
  });

  it('refuses a code redeemed under another request’s state: its PKCE verifier does not match the challenge', async () => {
    const first = await consented(`pkce@${domain}`);
    const second = await consented(`pkce@${domain}`);
    await refused(mainId, { code: first.code, state: second.state }, 'error in the response body');
    expect(provider.tokenRequests.at(-1)?.code).toBe(first.code);
  });

  it('lands on 1002, audited, for a callback the framework refuses: repeated code, state or error, an oversized state', async () => {
    await connect();
    for (const query of ['code=a&code=b&state=x', 'code=a&state=a&state=b', 'error=x&error=y&state=z', `code=a&state=${'s'.repeat(600)}`]) {
      const response = await writesNoAccount(t, () =>
        t.app.inject({ method: 'GET', url: `${new URL(ssoUrls(t.config, mainId).oidcCallback).pathname}?${query}` }),
      );
      await expectRefused(t, mainId, response, '1002', 'the framework refused');
    }
  });

  it('lands an answer the provider posts (response_mode=form_post) on 1002, audited, without spending its state', async () => {
    const { code, state } = await consented(`posted@${domain}`);
    const posted = await writesNoAccount(t, () =>
      t.app.inject({
        method: 'POST',
        url: new URL(ssoUrls(t.config, mainId).oidcCallback).pathname,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ code, state }).toString(),
      }),
    );
    await expectRefused(t, mainId, posted, '1002', 'form_post');
    expect(landing(await callback(mainId, { code, state })).get('transferToken')).not.toBeNull();
  });

  it('refuses a state of another connection, a missing state, and a state already spent', async () => {
    const elsewhere = await consented(`cross@${domain}`);
    await refused(otherId, { code: elsewhere.code, state: elsewhere.state }, 'state names no waiting request');
    // The refusal at the other connection did not spend it: the right callback still signs in once.
    expect(landing(await callback(mainId, { code: elsewhere.code, state: elsewhere.state })).get('transferToken')).not.toBeNull();
    await refused(mainId, { code: elsewhere.code, state: elsewhere.state }, 'state names no waiting request');
    await refused(mainId, { code: elsewhere.code }, 'no state');
  });
});
