import { request as httpRequest } from 'node:http';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson } from '../../../test/account-entry.js';
import { EXCHANGE_URL, exchange, googleEnv, googleRound, passConsent, REDIRECT_URI, startGoogle, useGoogleTestApp } from '../../../test/google.js';
import { createTestApp, dbUnavailable, MINUTE, newDeviceId, uniqueEmail, type TestApp } from '../../../test/helpers.js';
import { MisbehavingProvider, type Misbehaviour } from '../../../test/misbehaving-provider.js';
import { pkceChallenge, randomToken, sha256Hex } from '../../lib/crypto.js';
import { startStandIn } from './stand-in.js';

describe.skipIf(dbUnavailable)('the OpenID Connect exchange (decision 0019)', () => {
  const t = useGoogleTestApp();

  it('answers the consent page: code flow, openid email profile, PKCE S256, the state and a nonce, the callback address', async () => {
    const state = randomToken();
    const response = await startGoogle(t, state);
    expect(response.statusCode).toBe(200);
    const url = new URL(response.json<{ url: string }>().url);
    expect(url.origin).toBe(t.provider.issuer);
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      response_type: 'code',
      scope: 'openid email profile',
      client_id: t.provider.clientId,
      redirect_uri: REDIRECT_URI,
      state,
      code_challenge_method: 'S256',
    });
    expect(url.searchParams.get('nonce')?.length).toBeGreaterThanOrEqual(32);
    // Only the hash of the state is kept; the verifier never leaves the server, its S256 hash does.
    const row = await t.db.selectFrom('social_auth_states').selectAll().where('id', '=', sha256Hex(state)).executeTakeFirstOrThrow();
    expect(url.searchParams.get('code_challenge')).toBe(pkceChallenge(row.code_verifier));
    expect(url.searchParams.get('code_challenge')).not.toBe(row.code_verifier);
    const rows = await t.db.selectFrom('social_auth_states').selectAll().execute();
    expect(JSON.stringify(rows)).not.toContain(state);
  });

  it('removes expired requests at most once a minute, and never spends one that is still there', async () => {
    const expiredRow = (state: string) => ({
      id: sha256Hex(state),
      code_verifier: randomToken(),
      nonce: randomToken(),
      created_at: t.clock.now() - 11 * MINUTE,
      expires_at: t.clock.now() - 1,
      used_at: null,
    });
    const present = async (state: string) =>
      (await t.db.selectFrom('social_auth_states').select('id').where('id', '=', sha256Hex(state)).execute()).length;
    // Past any sweep an earlier test made.
    t.clock.advance(MINUTE + 1000);
    const expired = randomToken();
    await t.db.insertInto('social_auth_states').values(expiredRow(expired)).execute();
    expect((await startGoogle(t)).statusCode).toBe(200);
    expect(await present(expired)).toBe(0);

    // Within the minute a start leaves an expired row where it is; spending it still fails.
    const lingering = randomToken();
    await t.db.insertInto('social_auth_states').values(expiredRow(lingering)).execute();
    t.clock.advance(MINUTE - 1000);
    expect((await startGoogle(t)).statusCode).toBe(200);
    expect(await present(lingering)).toBe(1);
    const round = await googleRound(t, { email: uniqueEmail() });
    expect((await exchange(t, { code: round.code, state: lingering })).json()).toEqual({ errorMessage: 'invalidState' });
    expect(
      (await t.db.selectFrom('social_auth_states').select('used_at').where('id', '=', sha256Hex(lingering)).executeTakeFirstOrThrow()).used_at,
    ).toBeNull();

    t.clock.advance(2000);
    expect((await startGoogle(t)).statusCode).toBe(200);
    expect(await present(lingering)).toBe(0);
  });

  it('refuses a state it never issued, and a state already spent (invalidState)', async () => {
    const round = await googleRound(t, { email: uniqueEmail() });
    const forged = await exchange(t, { code: round.code, state: randomToken() });
    expect(forged.statusCode).toBe(400);
    expect(forged.json()).toEqual({ errorMessage: 'invalidState' });
    expect((await exchange(t, round)).statusCode).toBe(200);
    expect((await exchange(t, round)).json()).toEqual({ errorMessage: 'invalidState' });
  });

  it("takes the state of this browser's start when the exchange leaves it out, as spec §7's payload does", async () => {
    const state = randomToken();
    const started = await startGoogle(t, state);
    const cookie = started.cookies.find((entry) => entry.name.startsWith('social_auth_state'));
    expect(cookie).toMatchObject({ value: state, httpOnly: true, sameSite: 'Strict', path: '/' });
    const outcome = await passConsent(started.json<{ url: string }>().url, { email: uniqueEmail('stateless') });
    if (!('code' in outcome)) throw new Error('consent failed');
    // Neither the state nor a cookie: nothing says which start this code answers.
    const bare = await postJson(t, EXCHANGE_URL, { authorizationCode: outcome.code, deviceId: newDeviceId() });
    expect(bare.statusCode).toBe(400);
    expect(bare.json()).toEqual({ errorMessage: 'invalidRequest', fields: ['state'] });
    const exchanged = await postJson(
      t,
      EXCHANGE_URL,
      { authorizationCode: outcome.code, deviceId: newDeviceId() },
      { cookies: { [cookie?.name ?? '']: state } },
    );
    expect(exchanged.statusCode, exchanged.body).toBe(200);
    expect(exchanged.json()).toMatchObject({ wasSignUp: true });
    // The cookie is cleared with the exchange, and the state was spent like any other.
    expect(exchanged.cookies.find((entry) => entry.name === cookie?.name)?.value).toBe('');
    expect((await exchange(t, outcome)).json()).toEqual({ errorMessage: 'invalidState' });
  });

  it('refuses a state older than ten minutes', async () => {
    const round = await googleRound(t, { email: uniqueEmail() });
    t.clock.advance(11 * MINUTE);
    expect((await exchange(t, round)).json()).toEqual({ errorMessage: 'invalidState' });
  });

  it('refuses a replayed code, and a code from another authorization request (socialAuthFailed)', async () => {
    const first = await googleRound(t, { email: uniqueEmail() });
    expect((await exchange(t, first)).statusCode).toBe(200);
    // The code again, under a fresh state of this browser: the provider has spent it.
    const fresh = randomToken();
    await startGoogle(t, fresh);
    const replayed = await exchange(t, { code: first.code, state: fresh });
    expect(replayed.statusCode).toBe(401);
    expect(replayed.json()).toEqual({ errorMessage: 'socialAuthFailed' });
    // Another request's unspent code: its PKCE verifier and nonce are not this state's.
    const mine = await googleRound(t, { email: uniqueEmail() });
    const theirs = await googleRound(t, { email: uniqueEmail() });
    expect((await exchange(t, { code: theirs.code, state: mine.state })).json()).toEqual({ errorMessage: 'socialAuthFailed' });
  });

  it('brings a person who cancels at the consent page back with error=access_denied and their state', async () => {
    const state = randomToken();
    const outcome = await passConsent((await startGoogle(t, state)).json<{ url: string }>().url, 'cancel');
    expect(outcome).toMatchObject({ state });
    expect('error' in outcome && outcome.error.startsWith('access_denied')).toBe(true);
  });
});

describe.skipIf(dbUnavailable)('ID tokens that must be refused, from a misbehaving provider', () => {
  const double = new MisbehavingProvider();
  let t: TestApp;
  beforeAll(async () => {
    await double.start();
    // A 3 s request deadline: the provider's calls then time out after 2 s (providerTimeoutS).
    t = await createTestApp({ env: { ...googleEnv(double), REQUEST_TIMEOUT_MS: '3000' } });
  });
  afterAll(async () => {
    await t?.close();
    await double.stop();
  });

  async function exchangeWith(behaviour: Misbehaviour) {
    const state = randomToken();
    const started = await startGoogle(t, state);
    double.nonce = new URL(started.json<{ url: string }>().url).searchParams.get('nonce') ?? '';
    double.behaviour = behaviour;
    double.email = uniqueEmail(behaviour.toLowerCase());
    return exchange(t, { code: randomToken(), state });
  }

  it('accepts a correct ID token from the double (the control)', async () => {
    expect((await exchangeWith('honest')).json()).toMatchObject({ wasSignUp: true });
  });

  it('answers unavailable (503), not socialAuthFailed, when the token endpoint does not answer in time', async () => {
    double.tokenDelayMs = 3000;
    try {
      const response = await exchangeWith('honest');
      expect(response.statusCode).toBe(503);
      expect(response.json()).toEqual({ errorMessage: 'unavailable' });
    } finally {
      double.tokenDelayMs = 0;
    }
  });

  it('answers unavailable (503) when the token endpoint throttles the client (429)', async () => {
    double.tokenRefusal = { status: 429, body: { error: 'slow_down' } };
    try {
      const response = await exchangeWith('honest');
      expect(response.statusCode).toBe(503);
      expect(response.json()).toEqual({ errorMessage: 'unavailable' });
      expect(response.headers['retry-after']).toBe('5');
    } finally {
      double.tokenRefusal = undefined;
    }
  });

  it('fetches the keys again after the provider rotates them, not a minute later', async () => {
    expect((await exchangeWith('honest')).statusCode).toBe(200);
    double.rotateKey();
    const jwksBefore = double.served.jwks;
    // The first token signed with the new key meets the cached set: refused, as any unknown key is.
    expect((await exchangeWith('honest')).json()).toEqual({ errorMessage: 'socialAuthFailed' });
    t.clock.advance(5_000);
    // The next sign-in discovers afresh and finds the new key.
    expect((await exchangeWith('honest')).json()).toMatchObject({ wasSignUp: true });
    expect(double.served.jwks).toBeGreaterThan(jwksBefore);
  });

  it('keeps signing in with the configuration in hand while discovery fails after a token named an unknown key', async () => {
    expect((await exchangeWith('honest')).statusCode).toBe(200);
    expect((await exchangeWith('unknownKey')).json()).toEqual({ errorMessage: 'socialAuthFailed' });
    double.discoveryDown = true;
    try {
      t.clock.advance(5_000);
      const discoveries = double.served.discovery;
      expect((await exchangeWith('honest')).json()).toMatchObject({ wasSignUp: true });
      // It did try to discover afresh, and goes on trying at most every 5 s.
      expect(double.served.discovery).toBe(discoveries + 1);
      expect((await exchangeWith('honest')).statusCode).toBe(200);
      expect(double.served.discovery).toBe(discoveries + 1);
    } finally {
      double.discoveryDown = false;
    }
  });

  async function exchangeWithClaims(claims: Record<string, unknown>, userinfo?: Record<string, unknown>) {
    double.claims = claims;
    double.userinfo = userinfo;
    try {
      return await exchangeWith('honest');
    } finally {
      double.claims = {};
      double.userinfo = undefined;
    }
  }

  const usersOf = (emailKey: string) =>
    t.db.selectFrom('users').select(['id', 'first_name', 'email_verified_at']).where('email_key', '=', emailKey).execute();

  it('refuses a blank subject, which would make everyone the provider sends without one a single account', async () => {
    for (const sub of ['', '   ']) {
      const response = await exchangeWithClaims({ sub });
      expect(response.statusCode).toBe(401);
      expect(response.json()).toEqual({ errorMessage: 'socialAuthFailed' });
      expect(await usersOf(double.email)).toEqual([]);
    }
    expect(await t.db.selectFrom('external_identities').select('subject').where('subject', 'in', ['', '   ']).execute()).toEqual([]);
  });

  it.each([
    ['a subject holding NUL', { sub: 'a\u0000b' }],
    ['a subject of 2,000 characters', { sub: 'x'.repeat(2000) }],
    ['an email that is no email', { email: 'not an email at all' }],
    ['an email of 5,000 characters', { email: `${'a'.repeat(5000)}@example.com` }],
    ['an email holding NUL', { email: 'ann\u0000@example.com' }],
    ['an azp naming another party', { azp: 'another-client' }],
    ['an iat a day in the future', { iat: Math.floor(Date.now() / 1000) + 86_400 }],
  ])('refuses %s (socialAuthFailed), on either database, and writes no account', async (_what, claims) => {
    const response = await exchangeWithClaims(claims);
    expect(response.statusCode).toBe(401);
    expect(response.json()).toEqual({ errorMessage: 'socialAuthFailed' });
    expect(await usersOf(double.email)).toEqual([]);
  });

  it('signs a person up without a name that holds a control character, and cuts a long one to 100 characters', async () => {
    const response = await exchangeWithClaims({ given_name: 'A\u0000B', family_name: 'L'.repeat(5000) });
    expect(response.statusCode).toBe(200);
    const [user] = await t.db.selectFrom('users').select(['first_name', 'last_name']).where('email_key', '=', double.email).execute();
    expect(user).toEqual({ first_name: null, last_name: 'L'.repeat(100) });
  });

  it("takes email_verified from where the email came from: userinfo's unverified address is not vouched for by the token", async () => {
    double.email = uniqueEmail('userinfo');
    const fromUserinfo = uniqueEmail('userinfo-address');
    const sub = 'userinfo-subject';
    const response = await exchangeWithClaims({ email: undefined, email_verified: true, sub }, { sub, email: fromUserinfo, email_verified: false });
    expect(response.statusCode).toBe(403);
    expect(response.json()).toEqual({ errorMessage: 'emailNotVerified' });
    expect(await usersOf(fromUserinfo)).toEqual([]);
    // The same address, verified by userinfo itself, signs up.
    const verified = await exchangeWithClaims({ email: undefined, email_verified: false, sub }, { sub, email: fromUserinfo, email_verified: true });
    expect(verified.json()).toMatchObject({ wasSignUp: true });
    expect(await usersOf(fromUserinfo)).toHaveLength(1);
  });

  it.each<Misbehaviour>(['wrongAudience', 'wrongIssuer', 'expired', 'wrongNonce', 'foreignKey'])('refuses an ID token with %s', async (behaviour) => {
    const response = await exchangeWith(behaviour);
    expect(response.statusCode).toBe(401);
    expect(response.json()).toEqual({ errorMessage: 'socialAuthFailed' });
    expect(await t.db.selectFrom('users').select('id').where('email_key', '=', double.email).execute()).toEqual([]);
  });
});

describe.skipIf(dbUnavailable)('an issuer that cannot be reached', () => {
  it('answers unavailable (503) without crashing, and tries discovery again later', async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const address = probe.address();
        probe.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
      });
    });
    const env = { GOOGLE_ISSUER: `http://127.0.0.1:${port}`, GOOGLE_CLIENT_ID: 'foyer-local', GOOGLE_CLIENT_SECRET: 'unknown-yet' };
    const t = await createTestApp({ env });
    try {
      // Requests that arrive together share one discovery, and each gets the same 503.
      const together = await Promise.all([startGoogle(t), startGoogle(t), startGoogle(t)]);
      expect(together.map((response) => [response.statusCode, response.json()])).toEqual(
        Array.from({ length: 3 }, () => [503, { errorMessage: 'unavailable' }]),
      );
      t.clock.advance(MINUTE);
      const down = await startGoogle(t);
      expect(down.statusCode).toBe(503);
      expect(down.json()).toEqual({ errorMessage: 'unavailable' });
      expect(await t.db.selectFrom('social_auth_states').selectAll().execute()).toEqual([]);
      const provider = await startStandIn({ host: '127.0.0.1', port, redirectUris: [REDIRECT_URI] });
      try {
        t.clock.advance(MINUTE);
        expect((await startGoogle(t)).statusCode).toBe(200);
      } finally {
        await provider.close();
      }
    } finally {
      await t.close();
    }
  });

  it('answers at once while a discovery that hung for the whole time-out is less than 5 s old', async () => {
    let requests = 0;
    let t: TestApp | undefined;
    const sockets: Socket[] = [];
    // Takes each connection and never answers; the time-out passes on the app's clock too.
    const hanging = createServer((socket) => {
      requests += 1;
      sockets.push(socket);
      t?.clock.advance(10_000);
    });
    const port = await new Promise<number>((resolve) => hanging.listen(0, '127.0.0.1', () => resolve((hanging.address() as AddressInfo).port)));
    try {
      t = await createTestApp({
        env: {
          GOOGLE_ISSUER: `http://127.0.0.1:${port}`,
          GOOGLE_CLIENT_ID: 'foyer-local',
          GOOGLE_CLIENT_SECRET: 'unknown-yet',
          REQUEST_TIMEOUT_MS: '1500',
        },
      });
      expect((await startGoogle(t)).json()).toEqual({ errorMessage: 'unavailable' });
      expect(requests).toBe(1);
      const started = Date.now();
      expect((await startGoogle(t)).json()).toEqual({ errorMessage: 'unavailable' });
      expect(requests).toBe(1);
      expect(Date.now() - started).toBeLessThan(500);
    } finally {
      await t?.close();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => hanging.close(() => resolve()));
    }
  });

  it('serves the local stand-in only to requests that name this machine (DNS rebinding)', async () => {
    const provider = await startStandIn({ host: '127.0.0.1', port: 0, redirectUris: [REDIRECT_URI] });
    try {
      const discovery = `${provider.issuer}/.well-known/openid-configuration`;
      expect((await fetch(discovery)).status).toBe(200);
      const { port } = new URL(provider.issuer);
      const rebound = await new Promise<number>((resolve, reject) => {
        const request = httpRequest(
          { host: '127.0.0.1', port, path: '/.well-known/openid-configuration', headers: { host: `rebind.evil.example:${port}` } },
          (response) => {
            response.resume();
            resolve(response.statusCode ?? 0);
          },
        );
        request.on('error', reject);
        request.end();
      });
      expect(rebound).toBe(421);
    } finally {
      await provider.close();
    }
  });

  it('answers notFound when Google sign-in is not configured', async () => {
    const t = await createTestApp();
    try {
      expect((await startGoogle(t)).json()).toEqual({ errorMessage: 'notFound' });
    } finally {
      await t.close();
    }
  });
});
