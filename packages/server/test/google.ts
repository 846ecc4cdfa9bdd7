import { API_BASE, CALLS } from '@foyer/contract';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import type { Database } from '../src/db/database.js';
import { googleRedirectUri } from '../src/features/google/google.client.js';
import { startStandIn, type StandIn } from '../src/features/google/stand-in.js';
import { randomToken } from '../src/lib/crypto.js';
import { postJson } from './account-entry.js';
import { createTestApp, createTestDatabase, dbUnavailable, newDeviceId, testConfig, type TestApp } from './helpers.js';

/** Helpers for Google sign-in tests: a real OpenID provider (the stand-in, oidc-provider) per file. */

export const SOCIAL_AUTH_URL = API_BASE + CALLS.socialAuth.path;
export const EXCHANGE_URL = API_BASE + CALLS.googleExchange.path;
export const TRANSFER_URL = API_BASE + CALLS.exchangeSSOTransferToken.path;
export const TRANSFER_CHECK_URL = API_BASE + CALLS.exchangeSSOTransferTokenCheck.path;

/** The redirect URI of the test configuration (PUBLIC_URL from PORT 8080). */
export const REDIRECT_URI = googleRedirectUri(testConfig().publicUrl);

export function googleEnv(provider: { issuer: string; clientId: string; clientSecret: string }): Record<string, string> {
  return { GOOGLE_ISSUER: provider.issuer, GOOGLE_CLIENT_ID: provider.clientId, GOOGLE_CLIENT_SECRET: provider.clientSecret };
}

export interface GoogleTestApp extends TestApp {
  provider: StandIn;
}

/** One database and one provider per file; a fresh app pointed at the provider per test. */
export function useGoogleTestApp(env: Record<string, string> = {}): GoogleTestApp {
  let database: Database | undefined;
  const context = {} as GoogleTestApp;
  beforeAll(async () => {
    if (dbUnavailable) return;
    database = await createTestDatabase();
    context.provider = await startStandIn({ host: '127.0.0.1', port: 0, redirectUris: [REDIRECT_URI] });
  });
  afterAll(async () => {
    await context.provider?.close();
    await database?.destroy();
  });
  beforeEach(async () => {
    if (database === undefined) return;
    Object.assign(context, await createTestApp({ database, env: { ...googleEnv(context.provider), ...env } }));
  });
  afterEach(async () => {
    await context.app?.close();
  });
  return context;
}

export interface Person {
  email: string;
  givenName?: string;
  familyName?: string;
  /** Default true, as on the stand-in's page. */
  verified?: boolean;
}

/** A browser's cookie jar for the provider's own cookies (its interaction and session). */
class Jar {
  private readonly cookies = new Map<string, string>();
  header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }
  keep(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const at = pair.indexOf('=');
      if (at > 0) this.cookies.set(pair.slice(0, at).trim(), pair.slice(at + 1).trim());
    }
  }
}

export type ConsentOutcome = { code: string; state: string } | { error: string; state: string };

/**
 * What a person does on the provider's pages: opens the consent address, types their email and
 * names (or cancels), and is sent back to the redirect URI. Follows the redirects by hand, so
 * the return address is read instead of being requested.
 */
export async function passConsent(consentUrl: string, person: Person | 'cancel', redirectUri: string = REDIRECT_URI): Promise<ConsentOutcome> {
  const jar = new Jar();
  let url = consentUrl;
  let method = 'GET';
  let body: string | undefined;
  for (let hop = 0; hop < 12; hop++) {
    const response = await fetch(url, {
      method,
      redirect: 'manual',
      headers: { cookie: jar.header(), ...(body === undefined ? {} : { 'content-type': 'application/x-www-form-urlencoded' }) },
      ...(body === undefined ? {} : { body }),
    });
    jar.keep(response);
    const location = response.headers.get('location');
    if (location !== null) {
      const next = new URL(location, url);
      if (next.href.startsWith(redirectUri)) {
        const state = next.searchParams.get('state') ?? '';
        const code = next.searchParams.get('code');
        const error = `${next.searchParams.get('error') ?? 'none'}: ${next.searchParams.get('error_description') ?? ''}`;
        return code === null ? { error, state } : { code, state };
      }
      url = next.href;
      method = 'GET';
      body = undefined;
      continue;
    }
    const html = await response.text();
    const action = /<form method="post" action="([^"]+)"/.exec(html)?.[1];
    if (response.status !== 200 || action === undefined) throw new Error(`unexpected provider page ${response.status}: ${html.slice(0, 300)}`);
    const interaction = new URL(action, url);
    if (person === 'cancel') {
      url = new URL(interaction.pathname.replace(/\/login$/, '/abort'), url).href;
      body = '';
    } else {
      url = interaction.href;
      const form = new URLSearchParams({ email: person.email, given_name: person.givenName ?? 'Grace', family_name: person.familyName ?? 'Hopper' });
      if (person.verified !== false) form.set('email_verified', 'yes');
      body = form.toString();
    }
    method = 'POST';
  }
  throw new Error('too many redirects at the provider');
}

export function startGoogle(t: TestApp, state: string = randomToken()): Promise<LightMyRequestResponse> {
  return postJson(t, SOCIAL_AUTH_URL, { state });
}

export interface GoogleRound {
  state: string;
  code: string;
  consentUrl: string;
}

/** socialAuth, then the provider's pages: the code and state the callback screen would get. */
export async function googleRound(t: TestApp, person: Person): Promise<GoogleRound> {
  const state = randomToken();
  const started = await startGoogle(t, state);
  if (started.statusCode !== 200) throw new Error(`socialAuth failed: ${started.statusCode} ${started.body}`);
  const consentUrl = started.json<{ url: string }>().url;
  const outcome = await passConsent(consentUrl, person);
  if (!('code' in outcome)) throw new Error(`consent failed: ${outcome.error}`);
  return { state: outcome.state, code: outcome.code, consentUrl };
}

export function exchange(t: TestApp, round: { code: string; state: string }, extra: Record<string, unknown> = {}): Promise<LightMyRequestResponse> {
  return postJson(t, EXCHANGE_URL, { authorizationCode: round.code, state: round.state, deviceId: newDeviceId(), ...extra });
}

/** The whole sign-in with Google as the web app does it. */
export async function signInWithGoogle(t: TestApp, person: Person, extra: Record<string, unknown> = {}): Promise<LightMyRequestResponse> {
  return exchange(t, await googleRound(t, person), extra);
}
