// The ID token's checks as openid-client (oauth4webapi) makes them, shared by the Google floor
// (peer/google-floor-server.mjs) and the validation loop (lib/id-token-raw.mjs).
const { subtle } = globalThis.crypto;

export const RS256 = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' };
const CLOCK_TOLERANCE_S = 30;

const json = (part) => JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));

/**
 * True when `token` is an RS256 JWS signed by the key its `kid` names (`keyOf(kid)`, an imported
 * WebCrypto key or undefined) whose claims hold: iss, aud, azp, exp, iat, sub and the nonce.
 */
export async function validIdToken(token, { issuer, clientId, nonce, keyOf }) {
  const [protectedHeader, body, signature] = String(token).split('.');
  const { alg, kid } = json(protectedHeader);
  const key = keyOf(kid);
  if (alg !== 'RS256' || key === undefined) return false;
  const claims = json(body);
  if (!(await subtle.verify(RS256, key, Buffer.from(signature, 'base64url'), Buffer.from(`${protectedHeader}.${body}`)))) return false;
  const at = Math.floor(Date.now() / 1000);
  const audiences = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
  return (
    claims.iss === issuer &&
    audiences.includes(clientId) &&
    (claims.azp === undefined || claims.azp === clientId) &&
    typeof claims.exp === 'number' &&
    claims.exp > at - CLOCK_TOLERANCE_S &&
    typeof claims.iat === 'number' &&
    typeof claims.sub === 'string' &&
    claims.nonce === nonce
  );
}
