// The Google callback's own cryptography alone, for context beside the callback and its floor
// (peer/google-floor-server.mjs, which also redeems the code at the provider). An ID token as
// the provider issues it (RS256 JWS, RSA-2048, the claims of scopes openid email profile, a nonce)
// validated as openid-client does it (oauth4webapi): the header and payload decoded from
// base64url and parsed, the signature checked with WebCrypto (`crypto.subtle.verify`, on the
// libuv pool, the key imported once as the client caches it), and the claims: iss, aud, azp, exp,
// iat, sub and the nonce. `concurrency` validations in flight, in a process of its own.
//
// As a script, one measurement: node bench/lib/id-token-raw.mjs [seconds=10] [concurrency=8]
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { RS256, validIdToken } from './id-token-checks.mjs';
import { serveMeasurements, startWorker, summarizeRaw } from './raw-worker.mjs';

const { subtle } = globalThis.crypto;

const base64url = (bytes) => Buffer.from(bytes).toString('base64url');

/** A signed ID token like the provider's, and the check of one, as a function of no arguments. */
async function prepare({ issuer = 'https://127.0.0.1:8794', clientId = 'foyer-bench' } = {}) {
  const { privateKey, publicKey } = await subtle.generateKey({ ...RS256, modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]) }, true, [
    'sign',
    'verify',
  ]);
  const kid = randomBytes(8).toString('hex');
  const nonce = randomBytes(32).toString('base64url');
  const now = Math.floor(Date.now() / 1000);
  const header = base64url(JSON.stringify({ alg: 'RS256', typ: 'JWT', kid }));
  const payload = base64url(
    JSON.stringify({
      sub: `bench-${randomBytes(12).toString('hex')}`,
      email: 'bench-user-0@example.com',
      email_verified: true,
      family_name: 'User',
      given_name: 'Bench',
      name: 'Bench User',
      nonce,
      at_hash: randomBytes(16).toString('base64url'),
      sid: randomBytes(16).toString('base64url'),
      aud: clientId,
      exp: now + 3600,
      iat: now,
      iss: issuer,
    }),
  );
  const signature = base64url(await subtle.sign(RS256, privateKey, Buffer.from(`${header}.${payload}`)));
  const token = `${header}.${payload}.${signature}`;
  // The client imports the provider's key from its JWKS once and keeps it.
  const key = await subtle.importKey('jwk', await subtle.exportKey('jwk', publicKey), RS256, true, ['verify']);

  const keyOf = (keyId) => (keyId === kid ? key : undefined);
  return () => validIdToken(token, { issuer, clientId, nonce, keyOf });
}

/** The loop's process, measured in chunks (raw-worker.mjs). */
export function startIdTokenWorker(setup = {}) {
  return startWorker(fileURLToPath(import.meta.url), setup, 'the ID-token validation loop');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv[2] === '--worker') {
    serveMeasurements(prepare);
  } else {
    const [duration = '10', concurrency = '8'] = process.argv.slice(2);
    const worker = startIdTokenWorker();
    const result = summarizeRaw([await worker.measure(Number(duration), Number(concurrency))]);
    worker.stop();
    process.stdout.write(`${JSON.stringify(result)}\n`);
  }
}
