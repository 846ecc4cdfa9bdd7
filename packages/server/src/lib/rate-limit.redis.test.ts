import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, createTestDatabase, createTestUser, dbUnavailable, type TestApp } from '../../test/helpers.js';
import { postForgot, postReset, randomAddress } from '../../test/password.js';
import { TEST_REDIS_URL, redisAvailable } from '../../test/redis.js';
import type { Database } from '../db/database.js';
import { randomToken } from './crypto.js';
import { RESET_PER_IP } from '../features/password/password.limits.js';

const redis = await redisAvailable();

/**
 * ARCHITECTURE.md: with REDIS_URL set, rate-limit counters are shared by every instance. Two apps
 * (as two instances would be) on one database and one Redis. Addresses, emails and tokens are
 * fresh per test: counters left in Redis by earlier runs (whose manual clocks stood at the same
 * time) never meet these.
 */
describe.skipIf(dbUnavailable || !redis)('rate limits shared through Redis by two instances', () => {
  let database: Database;
  let apps: TestApp[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterEach(async () => {
    await Promise.all(apps.map((app) => app.close()));
    apps = [];
  });
  afterAll(async () => {
    await database.destroy();
  });

  async function twoInstances(): Promise<[TestApp, TestApp]> {
    const env = { REDIS_URL: TEST_REDIS_URL };
    const a = await createTestApp({ database, env });
    const b = await createTestApp({ database, env });
    apps = [a, b];
    return [a, b];
  }

  it('counts one email’s forgot-password requests across both: the sixth is refused on either', async () => {
    const [a, b] = await twoInstances();
    const { email } = await createTestUser(a);
    const address = randomAddress();
    for (const app of [a, b, a, b, a]) expect((await postForgot(app, { email }, { remoteAddress: address })).statusCode).toBe(200);
    for (const app of [b, a]) {
      const refused = await postForgot(app, { email }, { remoteAddress: address });
      expect(refused.statusCode).toBe(429);
      expect(refused.json()).toEqual({ errorMessage: 'rateLimitExeeded' });
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    }
  });

  it('counts one address’s reset attempts across both', async () => {
    const [a, b] = await twoInstances();
    const address = randomAddress();
    // Fresh tokens too: the per-link counter must not be the one that refuses.
    const reset = (app: TestApp) => postReset(app, randomToken(), 'a new password', { remoteAddress: address });
    for (let i = 0; i < RESET_PER_IP.limit; i++) expect((await reset(i % 2 === 0 ? a : b)).statusCode).toBe(400);
    expect((await reset(a)).statusCode).toBe(429);
    expect((await reset(b)).statusCode).toBe(429);
  });
});
