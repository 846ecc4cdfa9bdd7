import { normalizeEmail } from '@foyer/contract';
import { describe, expect, it } from 'vitest';
import { postForgot, randomAddress } from '../../../test/password.js';
import { MINUTE, createTestUser, dbUnavailable, newDeviceId, testConfig, uniqueEmail, useTestApp, xsrf } from '../../../test/helpers.js';
import { ConfigError } from '../../config.js';
import { sha256Hex } from '../../lib/crypto.js';
import { signinPerEmail } from './signin.limits.js';
import { getFailureCount } from '../lockout/lockout.repo.js';
import { limiterTime } from '../../../test/limiter-time.js';

describe.skipIf(dbUnavailable)('sign-in rate limits (decision 0010)', () => {
  const t = useTestApp();

  const post = (body: { email: string; password: string }, remoteAddress?: string) => {
    const pair = xsrf();
    return t.app.inject({
      method: 'POST',
      url: '/api/account/signin',
      cookies: pair.cookies,
      headers: pair.headers,
      payload: { email: body.email, hashPassword: sha256Hex(body.password), deviceId: newDeviceId() },
      ...(remoteAddress === undefined ? {} : { remoteAddress }),
    });
  };

  it('allows 100 attempts per client address in 15 minutes, whatever the emails, then answers 429 with Retry-After', async () => {
    const time = limiterTime(t);
    const account = await createTestUser(t);
    for (let i = 0; i < 100; i++) expect((await post({ email: uniqueEmail('spray'), password: 'wrong' })).statusCode).toBe(401);
    const refused = await post(account);
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toEqual({ errorMessage: 'rateLimitExeeded' });
    // The clock stands still: the window, opened by the first attempt, ends in 15 minutes.
    expect(refused.headers['retry-after']).toBe(String(15 * 60));
    // Refused before any password work: nothing was counted against the email.
    expect(await getFailureCount(t.db, normalizeEmail(account.email))).toBeUndefined();
    expect((await post(account, randomAddress())).statusCode).toBe(200);
    time.advance(15 * MINUTE);
    expect((await post(account)).statusCode).toBe(200);
  });

  it('shows the lock, not the limit, in the normal case; 30 attempts per email from any address, then 429', async () => {
    const account = await createTestUser(t);
    const statuses: number[] = [];
    for (let i = 0; i < 30; i++) statuses.push((await post({ email: account.email, password: 'wrong' }, randomAddress())).statusCode);
    expect(statuses.slice(0, 9)).toEqual(Array.from({ length: 9 }, () => 401));
    expect(statuses.slice(9)).toEqual(Array.from({ length: 21 }, () => 423));
    const refused = await post({ email: account.email.toUpperCase(), password: 'wrong' }, randomAddress());
    expect(refused.statusCode).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    // Another email from the same addresses is not affected.
    expect((await post(await createTestUser(t), randomAddress())).statusCode).toBe(200);
  });

  it('keeps the per-email limit at three times a raised lockout threshold', () => {
    expect(signinPerEmail(10).limit).toBe(30);
    expect(signinPerEmail(3).limit).toBe(30);
    expect(signinPerEmail(50).limit).toBe(150);
  });
});

describe.skipIf(dbUnavailable)('RATE_LIMITS=off (the benchmark harness only)', () => {
  const t = useTestApp({ env: { RATE_LIMITS: 'off' } });

  it('refuses nothing', async () => {
    const { email } = await createTestUser(t);
    for (let i = 0; i < 8; i++) expect((await postForgot(t, { email })).statusCode).toBe(200);
  });

  it('is on by default and accepts only on or off', () => {
    expect(testConfig().rateLimits).toBe(true);
    expect(testConfig({ RATE_LIMITS: 'off' }).rateLimits).toBe(false);
    expect(() => testConfig({ RATE_LIMITS: 'no' })).toThrow(ConfigError);
    expect(() => testConfig({ RATE_LIMITS: 'no' })).toThrow(/RATE_LIMITS/);
  });
});
