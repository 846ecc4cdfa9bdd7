import { createHash, createHmac, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * An OpenID provider for company SSO tests that issues the ID tokens an attacker or a broken
 * provider would: it serves real discovery and a real JWKS, enforces PKCE (S256) on its token
 * endpoint as a conforming provider does, and answers the code with an ID token forged as the
 * test chooses. `honest` issues a correct one, so a refusal is seen to come from the forgery.
 *
 * Its discovery advertises `RS256`, `HS256` and `none` for ID tokens, the most a provider may
 * claim, so a refused `none` or `HS256` token is refused by the client's own rule (ID tokens are
 * verified against the issuer's published keys) and not by the provider's metadata.
 */
export type IdTokenForgery =
  | 'honest'
  | 'wrongIssuer'
  | 'wrongAudience'
  | 'anotherClientAuthorized'
  | 'expired'
  | 'wrongNonce'
  | 'noNonce'
  | 'foreignKey'
  | 'algNone'
  | 'hs256ClientSecret'
  | 'hs256PublicKey';

interface IssuedCode {
  challenge: string;
  nonce: string;
}

export class OidcForger {
  readonly clientId = 'foyer-sso-client';
  readonly clientSecret = randomBytes(16).toString('hex');
  issuer = '';
  forgery: IdTokenForgery = 'honest';
  email = 'ann@example.com';
  /** Claims that replace the ID token's own; a key set to undefined leaves that claim out. */
  claims: Record<string, unknown> = {};
  /** How long the token endpoint keeps each request waiting before it answers (a slow provider). */
  tokenDelayMs = 0;
  /** What each token request carried, for the test to read. */
  readonly tokenRequests: Array<{ code: string; codeVerifier: string | null }> = [];
  private readonly codes = new Map<string, IssuedCode>();
  private readonly key = generateKeyPairSync('rsa', { modulusLength: 2048 });
  private readonly foreign = generateKeyPairSync('rsa', { modulusLength: 2048 });
  private readonly kid = randomBytes(6).toString('hex');
  private server: Server | undefined;

  async start(): Promise<void> {
    this.server = createServer((request, response) => {
      const path = new URL(request.url ?? '/', 'http://x').pathname;
      const json = (status: number, body: unknown) => {
        response.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
        response.end(JSON.stringify(body));
      };
      if (path === '/.well-known/openid-configuration') return json(200, this.metadata());
      if (path === '/jwks') return json(200, { keys: [this.publicJwk()] });
      if (path === '/token' && request.method === 'POST') {
        void readForm(request).then(async (form) => {
          if (this.tokenDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.tokenDelayMs));
          const code = form.get('code') ?? '';
          const codeVerifier = form.get('code_verifier');
          this.tokenRequests.push({ code, codeVerifier });
          const issued = this.codes.get(code);
          this.codes.delete(code);
          if (issued === undefined || codeVerifier === null || s256(codeVerifier) !== issued.challenge) {
            return json(400, { error: 'invalid_grant' });
          }
          return json(200, { access_token: randomBytes(16).toString('hex'), token_type: 'Bearer', expires_in: 60, id_token: this.idToken(issued) });
        });
        return undefined;
      }
      return json(404, { error: 'not_found' });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.issuer = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }

  /**
   * What the provider's consent page does when the person agrees: remembers the request's PKCE
   * challenge and nonce under a new code, and sends the browser back with the code and state.
   */
  authorize(authorizationUrl: string): { code: string; state: string; challenge: string } {
    const query = new URL(authorizationUrl).searchParams;
    const challenge = query.get('code_challenge') ?? '';
    const code = randomBytes(16).toString('base64url');
    this.codes.set(code, { challenge, nonce: query.get('nonce') ?? '' });
    return { code, state: query.get('state') ?? '', challenge };
  }

  private publicJwk() {
    return { ...this.key.publicKey.export({ format: 'jwk' }), kid: this.kid, alg: 'RS256', use: 'sig' };
  }

  private metadata() {
    return {
      issuer: this.issuer,
      authorization_endpoint: `${this.issuer}/authorize`,
      token_endpoint: `${this.issuer}/token`,
      jwks_uri: `${this.issuer}/jwks`,
      response_types_supported: ['code'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['RS256', 'HS256', 'none'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['client_secret_basic'],
    };
  }

  private idToken(issued: IssuedCode): string {
    const now = Math.floor(Date.now() / 1000);
    const forgery = this.forgery;
    const claims: Record<string, unknown> = {
      iss: forgery === 'wrongIssuer' ? 'https://idp.attacker.example' : this.issuer,
      aud: forgery === 'wrongAudience' ? 'another-client' : forgery === 'anotherClientAuthorized' ? [this.clientId, 'another-client'] : this.clientId,
      ...(forgery === 'anotherClientAuthorized' ? { azp: 'another-client' } : {}),
      sub: createHash('sha256').update(this.email).digest('hex').slice(0, 20),
      iat: forgery === 'expired' ? now - 7200 : now,
      exp: forgery === 'expired' ? now - 3600 : now + 600,
      ...(forgery === 'noNonce' ? {} : { nonce: forgery === 'wrongNonce' ? randomBytes(16).toString('base64url') : issued.nonce }),
      email: this.email,
      email_verified: true,
      ...this.claims,
    };
    for (const [name, value] of Object.entries(claims)) if (value === undefined) delete claims[name];
    const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const alg = forgery === 'algNone' ? 'none' : forgery.startsWith('hs256') ? 'HS256' : 'RS256';
    const input = `${encode({ alg, typ: 'JWT', kid: this.kid })}.${encode(claims)}`;
    if (alg === 'none') return `${input}.`;
    if (alg === 'HS256') {
      const secret = forgery === 'hs256ClientSecret' ? this.clientSecret : this.key.publicKey.export({ format: 'pem', type: 'spki' });
      return `${input}.${createHmac('sha256', secret).update(input).digest('base64url')}`;
    }
    const signer: KeyObject = forgery === 'foreignKey' ? this.foreign.privateKey : this.key.privateKey;
    return `${input}.${sign('sha256', Buffer.from(input), signer).toString('base64url')}`;
  }
}

function s256(verifier: string): string {
  return createHash('sha256').update(verifier).digest('base64url');
}

async function readForm(request: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}
