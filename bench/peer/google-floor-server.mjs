// The floor of a Google callback on this machine: what a callback cannot do without, in a bare
// node:http server. To each `account/socialAuth` it answers the provider's consent address for a
// state, a nonce and a PKCE challenge, kept in memory; to each `account/socialAuth/exchange` it
// takes the state's verifier and nonce, redeems the code at the provider's token endpoint over
// https (one keep-alive agent, client_secret_basic, PKCE), and validates the ID token as
// lib/id-token-raw.mjs does (RS256 with WebCrypto, the provider's key imported once; iss, aud, azp,
// exp, iat, sub, nonce). No framework, database, account, session or audit. The harness judges
// Foyer's callback against it; the validation loop alone stays beside both for context.
//
// Environment: PORT, HOST (default 127.0.0.1), ISSUER, CLIENT_ID, CLIENT_SECRET, REDIRECT_URI,
// CA_FILE (the provider's certificate). Prints `{"ready":true,...}` once it listens.
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { Agent, request } from 'node:https';
import { RS256, validIdToken } from '../lib/id-token-checks.mjs';

const port = Number(process.env.PORT ?? 8795);
const host = process.env.HOST ?? '127.0.0.1';
const issuer = process.env.ISSUER ?? '';
const clientId = process.env.CLIENT_ID ?? '';
const redirectUri = process.env.REDIRECT_URI ?? '';
const basic = `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(process.env.CLIENT_SECRET ?? '')}`).toString('base64')}`;
const agent = new Agent({ keepAlive: true, ca: readFileSync(process.env.CA_FILE ?? '', 'utf8') });

const { subtle } = globalThis.crypto;

/** One https exchange with the provider: status and parsed JSON. */
function call(url, { method = 'GET', headers = {}, body } = {}) {
  return new Promise((resolve, reject) => {
    const outgoing = request(url, { method, headers, agent, timeout: 10_000 }, (response) => {
      const chunks = [];
      response.on('data', (chunk) => chunks.push(chunk));
      response.on('end', () => {
        try {
          resolve({ status: response.statusCode, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
        } catch (error) {
          reject(error);
        }
      });
    });
    outgoing.on('error', reject);
    outgoing.on('timeout', () => outgoing.destroy(new Error(`${url} did not answer within 10 s`)));
    outgoing.end(body);
  });
}

const { body: metadata } = await call(`${issuer}/.well-known/openid-configuration`);
const { body: jwks } = await call(metadata.jwks_uri);
const keys = new Map();
for (const jwk of jwks.keys) {
  if (jwk.kty === 'RSA' && (jwk.alg === undefined || jwk.alg === 'RS256')) {
    keys.set(jwk.kid, await subtle.importKey('jwk', jwk, RS256, false, ['verify']));
  }
}

/** state -> { verifier, nonce }, taken once. */
const pending = new Map();

function consentUrl(state) {
  const verifier = randomBytes(32).toString('base64url');
  const nonce = randomBytes(32).toString('base64url');
  pending.set(state, { verifier, nonce });
  const url = new URL(metadata.authorization_endpoint);
  url.search = new URLSearchParams({
    client_id: clientId,
    redirect_uri: redirectUri,
    response_type: 'code',
    scope: 'openid email profile',
    state,
    nonce,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
  }).toString();
  return url.href;
}

async function exchange({ authorizationCode, state }) {
  const started = pending.get(state);
  if (started === undefined) return false;
  pending.delete(state);
  const tokens = await call(metadata.token_endpoint, {
    method: 'POST',
    headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code: authorizationCode,
      redirect_uri: redirectUri,
      code_verifier: started.verifier,
    }).toString(),
  });
  return tokens.status === 200 && (await validIdToken(tokens.body.id_token, { issuer, clientId, nonce: started.nonce, keyOf: (kid) => keys.get(kid) }));
}

async function answer(url, text) {
  const input = JSON.parse(text);
  if (url === '/api/account/socialAuth') return { status: 200, body: JSON.stringify({ url: consentUrl(String(input.state)) }) };
  if (url === '/api/account/socialAuth/exchange' && (await exchange(input))) {
    return { status: 200, body: JSON.stringify({ wasSignUp: false, otter: randomBytes(32).toString('base64url') }) };
  }
  return { status: 400, body: '{"errorMessage":"socialAuthFailed"}' };
}

const server = createServer((incoming, response) => {
  const chunks = [];
  incoming.on('data', (chunk) => chunks.push(chunk));
  incoming.on('end', () => {
    answer(incoming.url, Buffer.concat(chunks).toString('utf8'))
      .catch(() => ({ status: 400, body: '{"errorMessage":"socialAuthFailed"}' }))
      .then(({ status, body }) => {
        response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
        response.end(body);
      });
  });
});
server.keepAliveTimeout = 65_000;
server.listen(port, host, () => process.stdout.write(`${JSON.stringify({ ready: true, pid: process.pid })}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
