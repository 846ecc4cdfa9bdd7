import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../test/helpers.js';
import { TEST_REDIS_URL, redisAvailable } from '../../test/redis.js';
import { MemoryRateLimitStore, RateLimiter, RedisRateLimitStore, type RateLimitStore, type RateRule } from './rate-limit.js';

const MINUTE = 60_000;
const RULE: RateRule = { name: `test:${randomBytes(4).toString('hex')}`, limit: 3, windowMs: 15 * MINUTE };

/** The behaviour every store must give the limiter, run against each of them. */
function limiterContract(makeStore: (clock: ManualClock) => RateLimitStore) {
  it('allows `limit` hits per key and window, then refuses until the window ends', async () => {
    // Start at a window boundary so the arithmetic below is exact.
    const clock = new ManualClock(Math.ceil(Date.UTC(2030, 0, 1) / RULE.windowMs) * RULE.windowMs);
    const limiter = new RateLimiter(makeStore(clock), clock);
    const key = `ann-${randomBytes(4).toString('hex')}@example.com`;
    try {
      for (let i = 0; i < 3; i++) expect(await limiter.hit(RULE, key)).toEqual({ allowed: true, retryAfterMs: 0 });
      clock.advance(5 * MINUTE);
      expect(await limiter.hit(RULE, key)).toEqual({ allowed: false, retryAfterMs: 10 * MINUTE });
      // Other keys and other rules count on their own.
      expect((await limiter.hit(RULE, `${key}.other`)).allowed).toBe(true);
      expect((await limiter.hit({ ...RULE, name: `${RULE.name}:b` }, key)).allowed).toBe(true);
      clock.advance(10 * MINUTE);
      expect((await limiter.hit(RULE, key)).allowed).toBe(true);
    } finally {
      await limiter.close();
    }
  });

  it('counts parallel hits exactly', async () => {
    const clock = new ManualClock();
    const limiter = new RateLimiter(makeStore(clock), clock);
    const key = randomBytes(8).toString('hex');
    try {
      const decisions = await Promise.all(Array.from({ length: 10 }, () => limiter.hit(RULE, key)));
      expect(decisions.filter((decision) => decision.allowed)).toHaveLength(3);
    } finally {
      await limiter.close();
    }
  });
}

describe('MemoryRateLimitStore', () => {
  limiterContract((clock) => new MemoryRateLimitStore(clock));

  it('forgets finished windows', async () => {
    const clock = new ManualClock();
    const store = new MemoryRateLimitStore(clock);
    await store.increment('a', MINUTE);
    clock.advance(2 * MINUTE);
    expect(await store.increment('a', MINUTE)).toBe(1);
  });
});

describe('RateLimiter', () => {
  it('lets a hit through when its store fails, and says so', async () => {
    const clock = new ManualClock();
    const failures: string[] = [];
    const broken: RateLimitStore = {
      increment: () => Promise.reject(new Error('store down')),
      close: () => Promise.resolve(),
    };
    const limiter = new RateLimiter(broken, clock, (error, rule) => failures.push(`${rule.name}: ${(error as Error).message}`));
    expect(await limiter.hit(RULE, 'k')).toEqual({ allowed: true, retryAfterMs: 0 });
    expect(failures).toEqual([`${RULE.name}: store down`]);
  });

  it('never puts the key itself (an email) into the store', async () => {
    const seen: string[] = [];
    const clock = new ManualClock();
    const spy: RateLimitStore = { increment: async (key) => (seen.push(key), 1), close: () => Promise.resolve() };
    await new RateLimiter(spy, clock).hit(RULE, 'ann@example.com');
    expect(seen[0]).toMatch(new RegExp(`^foyer:rl:${RULE.name}:\\d+:[0-9a-f]{32}$`));
    expect(seen[0]).not.toContain('ann');
  });
});

const REDIS_URL = TEST_REDIS_URL;
const redisUp = await redisAvailable();

describe.skipIf(!redisUp)('RedisRateLimitStore (real Redis)', () => {
  limiterContract(() => new RedisRateLimitStore(REDIS_URL));

  let store: RedisRateLimitStore;
  let inspect: Redis;
  beforeAll(() => {
    store = new RedisRateLimitStore(REDIS_URL);
    inspect = new Redis(REDIS_URL);
  });
  afterAll(async () => {
    await store.close();
    await inspect.quit();
  });

  it('gives every counter an expiry, so Redis never keeps dead windows', async () => {
    const key = `foyer:rl:test:${randomBytes(6).toString('hex')}`;
    expect(await store.increment(key, 30_000)).toBe(1);
    expect(await store.increment(key, 30_000)).toBe(2);
    const ttl = await inspect.pttl(key);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(30_000);
  });

  it('shares counts between instances (two stores, one Redis)', async () => {
    const other = new RedisRateLimitStore(REDIS_URL);
    const key = `foyer:rl:test:${randomBytes(6).toString('hex')}`;
    try {
      await store.increment(key, 30_000);
      expect(await other.increment(key, 30_000)).toBe(2);
    } finally {
      await other.close();
    }
  });

  it('fails fast when Redis is unreachable, so the limiter can let the request through', async () => {
    const down = new RedisRateLimitStore('redis://127.0.0.1:9');
    const started = Date.now();
    await expect(down.increment('k', 1000)).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(5000);
    await down.close();
  });
});
