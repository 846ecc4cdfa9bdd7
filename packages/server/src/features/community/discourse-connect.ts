import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * DiscourseConnect as Discourse implements it (lib/discourse_connect_base.rb): the forum sends
 * `sso` (base64 of a query string) and `sig` (hex HMAC-SHA256 of `sso` under the shared secret);
 * the provider answers with the same pair built from the account's fields.
 */

/** Discourse refuses an `sso` with any other character: base64's alphabet and line breaks. */
const PAYLOAD_ALPHABET = /^[A-Za-z0-9+/=\r\n]+$/;
const SIGNATURE = /^[0-9a-f]{64}$/;

export function signPayload(secret: string, payload: string): string {
  return createHmac('sha256', secret).update(payload, 'utf8').digest('hex');
}

/**
 * Whether `signature` is the HMAC of `payload` exactly as received (line breaks included: Discourse
 * signs the text it sends, not the decoded bytes). Compared in constant time, so the answer's
 * timing tells nothing about how much of a forged signature was right.
 */
export function verifySignature(secret: string, payload: string, signature: string): boolean {
  if (!SIGNATURE.test(signature)) return false;
  const expected = Buffer.from(signPayload(secret, payload), 'hex');
  return timingSafeEqual(expected, Buffer.from(signature, 'hex'));
}

export interface IncomingRequest {
  nonce: string;
  returnSsoUrl: string;
}

/**
 * The forum's request, or why it is not one: `signature` for a signature that does not match or a
 * character Discourse itself refuses (nothing in it can be trusted), `malformed` for a payload
 * signed with the forum's secret that has no `nonce` or `return_sso_url` (the forum's own error,
 * or its secret in other hands).
 */
export function readRequest(secret: string, payload: string, signature: string): IncomingRequest | { refused: 'signature' | 'malformed' } {
  if (!PAYLOAD_ALPHABET.test(payload) || !verifySignature(secret, payload, signature)) return { refused: 'signature' };
  const fields = new URLSearchParams(Buffer.from(payload, 'base64').toString('utf8'));
  const nonce = fields.get('nonce');
  const returnSsoUrl = fields.get('return_sso_url');
  if (nonce === null || nonce === '' || returnSsoUrl === null || returnSsoUrl === '') return { refused: 'malformed' };
  return { nonce, returnSsoUrl };
}

/**
 * The fields Foyer asserts. Never `admin`, `moderator` or groups: the forum's roles are the
 * forum's to give, and an account here must not become a forum administrator by signing in.
 */
export interface Assertion {
  nonce: string;
  email: string;
  externalId: string;
  username: string;
  name: string;
  requireActivation: boolean;
}

/**
 * The raw answer in Discourse's order for its documented example, form-encoded as Rack's
 * build_query does (URLSearchParams escapes the same characters, `@` as `%40`, space as `+`).
 */
export function answerQuery(assertion: Assertion): string {
  return new URLSearchParams([
    ['nonce', assertion.nonce],
    ['name', assertion.name],
    ['username', assertion.username],
    ['email', assertion.email],
    ['external_id', assertion.externalId],
    ['require_activation', String(assertion.requireActivation)],
  ]).toString();
}

/** `sso=…&sig=…` for the answer: base64 without line breaks (Base64.strict_encode64), signed. */
export function signAnswer(secret: string, rawAnswer: string): { sso: string; sig: string } {
  const sso = Buffer.from(rawAnswer, 'utf8').toString('base64');
  return { sso, sig: signPayload(secret, sso) };
}

/**
 * Discourse's to_url: the return address with `sso` and `sig` appended to its own query. A
 * fragment stays last (to_url would put the answer after it, where the browser never sends it).
 */
export function answerUrl(returnSsoUrl: string, answer: { sso: string; sig: string }): string {
  const query = new URLSearchParams([
    ['sso', answer.sso],
    ['sig', answer.sig],
  ]).toString();
  const hashAt = returnSsoUrl.indexOf('#');
  const base = hashAt === -1 ? returnSsoUrl : returnSsoUrl.slice(0, hashAt);
  const fragment = hashAt === -1 ? '' : returnSsoUrl.slice(hashAt);
  return `${base}${base.includes('?') ? '&' : '?'}${query}${fragment}`;
}
