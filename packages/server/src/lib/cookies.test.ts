import { API_BASE, CALLS } from '@foyer/contract';
import type { LightMyRequestResponse } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestApp, createTestUser, dbUnavailable, sessionCookieName, setCookie, signIn, type TestApp } from '../../test/helpers.js';
import { XSRF_COOKIE } from './xsrf.js';

function setCookieLine(response: LightMyRequestResponse, name: string): string {
  const header = response.headers['set-cookie'];
  const lines = Array.isArray(header) ? header : [header ?? ''];
  return lines.find((value) => value.startsWith(`${name}=`)) ?? '';
}

/** The session and XSRF cookies a sign-in sets when the service is reached at PUBLIC_URL. */
async function cookiesAt(env: Record<string, string>): Promise<{ t: TestApp; session: string; xsrf: string }> {
  const t = await createTestApp({ env });
  const account = await createTestUser(t);
  const { response } = await signIn(t.app, account);
  expect(setCookie(response, sessionCookieName(t.config))).toBeDefined();
  // A first API answer without cookies hands out the XSRF token.
  const first = await t.app.inject({ method: 'GET', url: API_BASE + CALLS.session.path });
  return { t, session: setCookieLine(response, sessionCookieName(t.config)), xsrf: setCookieLine(first, XSRF_COOKIE) };
}

describe.skipIf(dbUnavailable)('cookie flags follow PUBLIC_URL (spec §3)', () => {
  let t: TestApp | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it('an IPv4 host keeps Secure and gets no Domain: the session token never travels in clear', async () => {
    const result = await cookiesAt({ PUBLIC_URL: 'http://203.0.113.5:8080' });
    t = result.t;
    expect(result.session).toMatch(/; Secure/);
    expect(result.session).not.toMatch(/Domain=/i);
    expect(result.session).toMatch(/; HttpOnly/);
    expect(result.xsrf).toMatch(/; Secure/);
  });

  it('a private address keeps Secure even locally: only loopback is exempt', async () => {
    const result = await cookiesAt({ FOYER_ENV: 'local', PUBLIC_URL: 'http://192.168.1.20:8080' });
    t = result.t;
    expect(result.session).toMatch(/; Secure/);
    expect(result.session).not.toMatch(/Domain=/i);
  });

  it('loopback in test drops Secure, so a browser on plain http keeps the cookie', async () => {
    const result = await cookiesAt({ PUBLIC_URL: 'http://127.0.0.1:8080' });
    t = result.t;
    expect(result.session).not.toMatch(/; Secure/);
    expect(result.session).not.toMatch(/Domain=/i);
  });
});
