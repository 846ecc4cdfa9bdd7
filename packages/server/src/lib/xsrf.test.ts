import { API_BASE, CALLS } from '@foyer/contract';
import { describe, expect, it } from 'vitest';
import { dbUnavailable, setCookie, useTestApp, xsrf } from '../../test/helpers.js';
import { randomToken } from './crypto.js';

const SIGNOUT_URL = API_BASE + CALLS.signout.path;

describe.skipIf(dbUnavailable)('XSRF double submit (spec §7)', () => {
  const t = useTestApp();
  const post = (cookies: Record<string, string>, headers: Record<string, string>) =>
    t.app.inject({ method: 'POST', url: SIGNOUT_URL, cookies, headers, payload: {} });

  it('refuses a state-changing request without the header', async () => {
    const { cookies } = xsrf();
    const response = await post(cookies, {});
    expect(response.statusCode).toBe(403);
    expect(response.json()).toEqual({ errorMessage: 'xsrfMismatch' });
  });

  it('refuses a header that differs from the cookie', async () => {
    const { cookies } = xsrf();
    const response = await post(cookies, { 'X-XSRF-TOKEN': randomToken() });
    expect(response.statusCode).toBe(403);
    expect(response.json()).toEqual({ errorMessage: 'xsrfMismatch' });
  });

  it('refuses a header without a cookie, and a malformed pair', async () => {
    const token = randomToken();
    expect((await post({}, { 'X-XSRF-TOKEN': token })).statusCode).toBe(403);
    expect((await post({ 'XSRF-TOKEN': 'short' }, { 'X-XSRF-TOKEN': 'short' })).statusCode).toBe(403);
  });

  it('accepts a matching pair', async () => {
    const pair = xsrf();
    expect((await post(pair.cookies, pair.headers)).statusCode).toBe(200);
  });

  it('checks unknown paths too, before anything else answers', async () => {
    const response = await t.app.inject({ method: 'DELETE', url: '/api/nothing-here' });
    expect(response.statusCode).toBe(403);
  });

  it('issues a script-readable, SameSite=Strict, host-only cookie to an API caller without one', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/api/account/session' });
    const cookie = setCookie(response, 'XSRF-TOKEN');
    expect(cookie?.value).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(cookie).toMatchObject({ path: '/', sameSite: 'Strict' });
    expect(cookie?.httpOnly).toBeUndefined();
    expect(cookie?.domain).toBeUndefined();
    // A refused request gets a cookie too, so the page can retry.
    expect(setCookie(await post({}, {}), 'XSRF-TOKEN')).toBeDefined();
  });

  it('keeps a valid cookie instead of issuing a new one', async () => {
    const pair = xsrf();
    const response = await t.app.inject({ method: 'GET', url: '/api/account/session', cookies: pair.cookies });
    expect(setCookie(response, 'XSRF-TOKEN')).toBeUndefined();
  });
});
