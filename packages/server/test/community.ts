import { API_BASE, CALLS, DEVICE_ID_HEADER } from '@foyer/contract';
import { randomBytes } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { signPayload } from '../src/features/community/discourse-connect.js';
import { postJson } from './account-entry.js';
import type { TestApp } from './helpers.js';

/** Forum sign-in helpers: requests built and answers checked the way Discourse does. */

export const FORUM_SECRET = 'a-forum-secret-for-tests-only';
export const FORUM_ORIGIN = 'https://forum.example.com';
export const FORUM_RETURN = `${FORUM_ORIGIN}/session/sso_login`;
export const FORUM_ENV = { DISCOURSE_CONNECT_SECRET: FORUM_SECRET, SERVER_URLS: JSON.stringify({ community: FORUM_ORIGIN }) };

export const DISCOURSE_SSO_URL = API_BASE + CALLS.discourseSso.path;
export const TERMS_AGREED_URL = API_BASE + CALLS.termsAgreed.path;
export const EXCHANGE_OTTER_URL = API_BASE + CALLS.exchangeOtterToken.path;

/** Discourse's request: base64 of `nonce` and `return_sso_url` (Ruby's Base64.encode64 adds line feeds). */
export function forumRequest(options: { nonce?: string; returnSsoUrl?: string; secret?: string } = {}): {
  ssoPayload: string;
  signature: string;
  nonce: string;
} {
  const nonce = options.nonce ?? randomBytes(16).toString('hex');
  const query = new URLSearchParams([
    ['nonce', nonce],
    ['return_sso_url', options.returnSsoUrl ?? FORUM_RETURN],
  ]).toString();
  const base64 = Buffer.from(query).toString('base64');
  const ssoPayload = `${base64.replace(/(.{60})/g, '$1\n')}\n`;
  return { ssoPayload, signature: signPayload(options.secret ?? FORUM_SECRET, ssoPayload), nonce };
}

/** Checks the answer's signature as Discourse does and returns its fields. */
export function forumAnswer(redirectUrl: string, secret: string = FORUM_SECRET): { returnTo: string; fields: URLSearchParams } {
  const url = new URL(redirectUrl);
  const sso = url.searchParams.get('sso') ?? '';
  const sig = url.searchParams.get('sig') ?? '';
  if (signPayload(secret, sso) !== sig) throw new Error('the answer’s signature does not match');
  return { returnTo: `${url.origin}${url.pathname}`, fields: new URLSearchParams(Buffer.from(sso, 'base64').toString('utf8')) };
}

/** A call with a session token in `Authorization` and the device id header, as native clients send. */
export function postWithToken(t: TestApp, url: string, payload: object, token: string, deviceId: string): Promise<LightMyRequestResponse> {
  return postJson(t, url, payload, { headers: { authorization: `Bearer ${token}`, [DEVICE_ID_HEADER]: deviceId } });
}
