import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A test double of an OpenID provider that misbehaves on purpose (decision 0019): it serves real
 * discovery and a real JWKS, and its token endpoint answers ID tokens whose claims the test
 * chooses: a wrong audience, issuer, expiry or nonce, or a signature by a key it does not
 * publish. A conforming provider (the stand-in) cannot be made to issue those, and these are
 * exactly the tokens the client must refuse. `honest` issues a correct one, to show that a
 * refusal comes from the claim under test and not from the double. `claims` overrides any claim
 * of the next ID tokens (undefined leaves it out); `userinfo`, when set, is what its userinfo
 * endpoint answers.
 */
export type Misbehaviour = 'honest' | 'wrongAudience' | 'wrongIssuer' | 'expired' | 'wrongNonce' | 'foreignKey' | 'unknownKey';

export class MisbehavingProvider {
  readonly clientId = 'foyer-test-client';
  readonly clientSecret = randomBytes(16).toString('hex');
  issuer = '';
  behaviour: Misbehaviour = 'honest';
  /** The nonce of the last authorization request, read from its URL by the test. */
  nonce = '';
  email = 'ann@example.com';
  /** Claims that replace the token's own; a key set to undefined leaves that claim out. */
  claims: Record<string, unknown> = {};
  /** The userinfo endpoint's answer (404 while undefined). */
  userinfo: Record<string, unknown> | undefined;
  /** How long the token endpoint keeps each request waiting before it answers (a slow provider). */
  tokenDelayMs = 0;
  /** What the token endpoint answers instead of tokens (a throttling provider), while set. */
  tokenRefusal: { status: number; body: unknown } | undefined;
  /** Discovery answers 503 while set (a provider down for a moment). */
  discoveryDown = false;
  /** Requests its discovery document and its key set have had. */
  readonly served = { discovery: 0, jwks: 0 };
  private key = generateKeyPairSync('rsa', { modulusLength: 2048 });
  private readonly foreign = generateKeyPairSync('rsa', { modulusLength: 2048 });
  private kid = randomBytes(6).toString('hex');
  private server: Server | undefined;

  async start(): Promise<void> {
    this.server = createServer((request, response) => {
      const path = new URL(request.url ?? '/', 'http://x').pathname;
      const json = (status: number, body: unknown) => {
        response.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
        response.end(JSON.stringify(body));
      };
      if (path === '/.well-known/openid-configuration') {
        this.served.discovery += 1;
        return this.discoveryDown ? json(503, { error: 'temporarily_unavailable' }) : json(200, this.metadata());
      }
      if (path === '/jwks') this.served.jwks += 1;
      if (path === '/jwks') return json(200, { keys: [{ ...this.key.publicKey.export({ format: 'jwk' }), kid: this.kid, alg: 'RS256', use: 'sig' }] });
      if (path === '/userinfo') return this.userinfo === undefined ? json(404, { error: 'not_found' }) : json(200, this.userinfo);
      if (path === '/token' && request.method === 'POST') {
        request.resume();
        request.on('end', () =>
          setTimeout(() => {
            if (this.tokenRefusal !== undefined) return json(this.tokenRefusal.status, this.tokenRefusal.body);
            return json(200, { access_token: randomBytes(16).toString('hex'), token_type: 'Bearer', expires_in: 60, id_token: this.idToken() });
          }, this.tokenDelayMs),
        );
        return undefined;
      }
      return json(404, { error: 'not_found' });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.issuer = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** A key rotation: a new signing key, published in place of the old one. */
  rotateKey(): void {
    this.key = generateKeyPairSync('rsa', { modulusLength: 2048 });
    this.kid = randomBytes(6).toString('hex');
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }

  private metadata() {
    return {
      issuer: this.issuer,
      authorization_endpoint: `${this.issuer}/authorize`,
      token_endpoint: `${this.issuer}/token`,
      jwks_uri: `${this.issuer}/jwks`,
      userinfo_endpoint: `${this.issuer}/userinfo`,
      response_types_supported: ['code'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['RS256'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['client_secret_basic'],
    };
  }

  private idToken(): string {
    const now = Math.floor(Date.now() / 1000);
    const claims: Record<string, unknown> = {
      iss: this.behaviour === 'wrongIssuer' ? 'https://accounts.evil.example' : this.issuer,
      aud: this.behaviour === 'wrongAudience' ? 'another-client' : this.clientId,
      sub: createHash('sha256').update(this.email).digest('hex').slice(0, 20),
      iat: this.behaviour === 'expired' ? now - 7200 : now,
      exp: this.behaviour === 'expired' ? now - 3600 : now + 600,
      nonce: this.behaviour === 'wrongNonce' ? randomBytes(16).toString('base64url') : this.nonce,
      email: this.email,
      email_verified: true,
      given_name: 'Ann',
      family_name: 'Example',
      ...this.claims,
    };
    for (const [name, value] of Object.entries(claims)) if (value === undefined) delete claims[name];
    const foreign = this.behaviour === 'foreignKey' || this.behaviour === 'unknownKey';
    const signer: KeyObject = foreign ? this.foreign.privateKey : this.key.privateKey;
    const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
    // unknownKey: a key id the published set does not have (foreignKey reuses the published one).
    const kid = this.behaviour === 'unknownKey' ? `unknown-${this.kid}` : this.kid;
    const input = `${encode({ alg: 'RS256', typ: 'JWT', kid })}.${encode(claims)}`;
    return `${input}.${sign('sha256', Buffer.from(input), signer).toString('base64url')}`;
  }
}
