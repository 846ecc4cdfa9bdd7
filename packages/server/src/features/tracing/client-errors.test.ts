import { callUrl } from '@foyer/contract';
import { afterEach, describe, expect, it } from 'vitest';
import { postJson } from '../../../test/account-entry.js';
import { createTestApp, dbUnavailable, uniqueEmail, xsrf, type TestApp } from '../../../test/helpers.js';
import { randomAddress } from '../../../test/password.js';
import { CLIENT_ERRORS_PER_IP } from './client-errors.routes.js';

const URL = callUrl('clientErrors');

describe.skipIf(dbUnavailable)('client/errors: the page reports an uncaught error (decision 0026)', () => {
  let t: TestApp | undefined;
  const lines: Array<Record<string, unknown>> = [];
  afterEach(async () => {
    await t?.close();
    t = undefined;
    lines.length = 0;
  });

  async function app(env: Record<string, string> = {}): Promise<TestApp> {
    t = await createTestApp({
      env: { LOG_LEVEL: 'warn', ...env },
      logStream: { write: (line) => lines.push(JSON.parse(line) as Record<string, unknown>) },
    });
    return t;
  }

  it('without a collector the report is logged, scrubbed of emails, tokens, passwords and query strings', async () => {
    const t = await app();
    const email = uniqueEmail('crash');
    const token = 'q9XkV2mB7nR4tY6uI1oP3aS5dF8gH0jK';
    const response = await postJson(t, URL, {
      message: `Error: sign-in failed for ${email} password=hunter2`,
      stack: `Error\n    at https://auth.example.com/assets/index-a1b2.js?session=${token}:1:200\n    at /setup-account/abc123 Bearer ${token}`,
      route: '/sign-in',
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({});

    const logged = lines.find((line) => line.msg === 'the web page reported an uncaught error');
    expect(logged?.clientError).toEqual({
      message: 'Error: sign-in failed for [email] password=[redacted]',
      stack: 'Error\n    at https://auth.example.com/assets/index-a1b2.js?[query]\n    at /setup-account/[token] Bearer [redacted]',
      route: '/sign-in',
    });
    const everything = JSON.stringify(lines);
    for (const secret of [email, token, 'hunter2', 'abc123']) expect(everything).not.toContain(secret);
  });

  it('bad reports get 400 invalidRequest, never a 5xx: no message, a visited path for a route, control characters, too long', async () => {
    const t = await app();
    const bad: Array<Record<string, unknown>> = [
      { route: '/sign-in' },
      { message: '', route: '/sign-in' },
      { message: 'x', route: '/reset-password/q9XkV2mB7nR4tY6uI1oP3aS5dF8gH0jK' },
      { message: 'x', route: 'https://elsewhere.example' },
      { message: 'x\u0000y', route: '/sign-in' },
      { message: 'x'.repeat(1001), route: '/sign-in' },
      { message: 'x', stack: 's'.repeat(8001), route: '/sign-in' },
      { message: 'x', route: '/sign-in', release: 'r'.repeat(101) },
      { message: 42, route: '/sign-in' },
    ];
    for (const body of bad) {
      const response = await postJson(t, URL, body);
      expect(response.statusCode, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(response.json()).toMatchObject({ errorMessage: 'invalidRequest' });
    }
    const pair = xsrf();
    const malformed = await t.app.inject({
      method: 'POST',
      url: URL,
      cookies: pair.cookies,
      headers: { ...pair.headers, 'content-type': 'application/json' },
      payload: '{"message":',
    });
    expect(malformed.statusCode).toBe(400);
    expect(lines.filter((line) => line.msg === 'the web page reported an uncaught error')).toEqual([]);
  });

  it('needs the XSRF pair like every write (spec §7)', async () => {
    const t = await app();
    const response = await t.app.inject({ method: 'POST', url: URL, payload: { message: 'x', route: '/sign-in' } });
    expect(response.statusCode).toBe(403);
    expect(response.json()).toEqual({ errorMessage: 'xsrfMismatch' });
  });

  it(`is rate limited per address: ${CLIENT_ERRORS_PER_IP.limit} reports per window, then 429 rateLimitExeeded with Retry-After`, async () => {
    const t = await app();
    const remoteAddress = randomAddress();
    for (let i = 0; i < CLIENT_ERRORS_PER_IP.limit; i++) {
      expect((await postJson(t, URL, { message: `Error ${i}`, route: '/sign-in' }, { remoteAddress })).statusCode).toBe(200);
    }
    const refused = await postJson(t, URL, { message: 'one more', route: '/sign-in' }, { remoteAddress });
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toEqual({ errorMessage: 'rateLimitExeeded' });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    // Another address is not affected.
    expect((await postJson(t, URL, { message: 'elsewhere', route: '/sign-in' }, { remoteAddress: randomAddress() })).statusCode).toBe(200);
  });
});
