import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { limiterApp, type LimiterApp } from '../../test/limiter-app.js';
import { TEST_REDIS_URL, redisAvailable } from '../../test/redis.js';
import { clientKey, type RateRule } from './rate-limit.js';

const MINUTE = 60_000;
const redisUp = await redisAvailable();

/** Fresh names per run: counters left in Redis by an earlier run never meet these. */
function rule(limit: number, windowMs = 15 * MINUTE): RateRule {
  return { name: `test:${randomBytes(4).toString('hex')}`, limit, windowMs };
}

const statuses = async (responses: Array<Promise<{ statusCode: number }>>) => (await Promise.all(responses)).map((response) => response.statusCode);

describe('the client an address-keyed limit counts (clientKey)', () => {
  it('counts an IPv4 address as it is, and an IPv6 address by its /64, however it is written', () => {
    expect(clientKey('203.0.113.7')).toBe('203.0.113.7');
    expect(clientKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
    for (const address of [
      '2001:db8:1:2::1',
      '2001:db8:1:2::23',
      '2001:0DB8:0001:0002:ffff:ffff:ffff:ffff',
      '2001:db8:1:2:3:4:5:6',
      '2001:db8:1:2::1%eth0',
    ]) {
      expect(clientKey(address)).toBe('2001:db8:1:2::/64');
    }
    expect(clientKey('2001:db8:1:3::1')).toBe('2001:db8:1:3::/64');
    // An IPv4 client however an IPv6 socket or a proxy writes it.
    for (const address of ['0:0:0:0:0:ffff:203.0.113.7', '::ffff:cb00:7107', '0::ffff:203.0.113.7', '::FFFF:203.0.113.7', '::203.0.113.7']) {
      expect([address, clientKey(address)]).toEqual([address, '203.0.113.7']);
    }
    // An embedded IPv4 tail is two groups: the /64 does not shift.
    expect(clientKey('1::2:3:4:5:1.2.3.4')).toBe(clientKey('1:0:2:3:4:5:1.2.3.4'));
    expect(clientKey('1:0:2:3:4:5:1.2.3.4')).toBe('1:0:2:3::/64');
    expect(clientKey('')).toBe('');
    expect(clientKey('::1')).toBe('0:0:0:0::/64');
    expect(clientKey('fe80::1')).toBe('fe80:0:0:0::/64');
    expect(clientKey('2001:db8::')).toBe('2001:db8:0:0::/64');
  });
});

/** What the counting must do whichever store holds the counters. */
function limiterContract(store: 'memory' | 'redis') {
  let limiter: LimiterApp;
  beforeAll(async () => {
    limiter = await limiterApp(store === 'redis' ? TEST_REDIS_URL : undefined);
  });
  afterAll(async () => {
    await limiter.close();
  });

  it('allows `limit` hits per key and window, then answers 429 rateLimitExeeded with Retry-After', async () => {
    const limited = rule(3);
    const key = `ann-${randomBytes(4).toString('hex')}@example.com`;
    for (let i = 0; i < 3; i++) expect((await limiter.hit([[limited, key]])).statusCode).toBe(200);
    const refused = await limiter.hit([[limited, key]]);
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toEqual({ errorMessage: 'rateLimitExeeded' });
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(14 * 60);
    expect(retryAfter).toBeLessThanOrEqual(15 * 60);
    // None of the plugin's own headers: the answer is the spec's (§8) and nothing more.
    expect(Object.keys(refused.headers).filter((name) => name.startsWith('x-ratelimit'))).toEqual([]);
    // Other keys and other rules count on their own.
    expect((await limiter.hit([[limited, `${key}.other`]])).statusCode).toBe(200);
    expect((await limiter.hit([[{ ...limited, name: `${limited.name}:b` }, key]])).statusCode).toBe(200);
  });

  it('counts parallel hits exactly', async () => {
    const limited = rule(3);
    const key = randomBytes(8).toString('hex');
    const answers = await statuses(Array.from({ length: 10 }, () => limiter.hit([[limited, key]])));
    expect(answers.filter((status) => status === 200)).toHaveLength(3);
  });

  it('counts every rule of a request, also those after one that refuses', async () => {
    const perAddress = rule(1);
    const perEmail = rule(4);
    const email = randomBytes(8).toString('hex');
    expect(
      await statuses([
        limiter.hit([
          [perAddress, 'a'],
          [perEmail, email],
        ]),
      ]),
    ).toEqual([200]);
    // Refused by the address rule, and still counted by the email rule.
    expect(
      await statuses([
        limiter.hit([
          [perAddress, 'a'],
          [perEmail, email],
        ]),
        limiter.hit([
          [perAddress, 'a'],
          [perEmail, email],
        ]),
      ]),
    ).toEqual([429, 429]);
    expect((await limiter.hit([[perEmail, email]])).statusCode).toBe(200);
    expect((await limiter.hit([[perEmail, email]])).statusCode).toBe(429);
  });
}

describe('rate limits in process memory (one instance)', () => {
  limiterContract('memory');

  it('ends the window `windowMs` after its first hit', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const limiter = await limiterApp();
    try {
      const limited = rule(2);
      for (let i = 0; i < 2; i++) expect((await limiter.hit([[limited, 'k']])).statusCode).toBe(200);
      vi.advanceTimersByTime(5 * MINUTE);
      const refused = await limiter.hit([[limited, 'k']]);
      expect(refused.headers['retry-after']).toBe(String(10 * 60));
      vi.advanceTimersByTime(10 * MINUTE);
      expect((await limiter.hit([[limited, 'k']])).statusCode).toBe(200);
    } finally {
      await limiter.close();
      vi.useRealTimers();
    }
  });

  it('has no shared store to report on', async () => {
    const limiter = await limiterApp();
    try {
      expect(await limiter.app.rateLimiter.health()).toBeUndefined();
    } finally {
      await limiter.close();
    }
  });
});

describe.skipIf(!redisUp)('rate limits in Redis (shared by every instance)', () => {
  limiterContract('redis');

  let inspect: Redis;
  const apps: LimiterApp[] = [];
  beforeAll(() => {
    inspect = new Redis(TEST_REDIS_URL);
  });
  afterEach(async () => {
    await Promise.all(apps.splice(0).map((app) => app.close()));
  });
  afterAll(async () => {
    await inspect.quit();
  });

  it('shares counts between instances (two apps, one Redis)', async () => {
    apps.push(await limiterApp(TEST_REDIS_URL), await limiterApp(TEST_REDIS_URL));
    const [a, b] = apps;
    if (a === undefined || b === undefined) throw new Error('apps not started');
    const limited = rule(3);
    expect(await statuses([a.hit([[limited, 'k']]), b.hit([[limited, 'k']]), a.hit([[limited, 'k']])])).toEqual([200, 200, 200]);
    expect((await b.hit([[limited, 'k']])).statusCode).toBe(429);
    expect(await a.app.rateLimiter.health()).toBe('ok');
  });

  it('keeps only a hash of the key (never an email), named by its rule, with the window as its expiry', async () => {
    apps.push(await limiterApp(TEST_REDIS_URL));
    const limited = rule(3, 30_000);
    await apps[0]?.hit([[limited, 'ann@example.com']]);
    const keys = await inspect.keys(`foyer:rl:*${limited.name}:*`);
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatch(new RegExp(`${limited.name}:[0-9a-f]{32}$`));
    expect(keys[0]).not.toContain('ann');
    const ttl = await inspect.pttl(keys[0] ?? '');
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(30_000);
  });

  it('lets a key count again once its window has passed', async () => {
    apps.push(await limiterApp(TEST_REDIS_URL));
    const limited = rule(1, 300);
    expect((await apps[0]?.hit([[limited, 'k']]))?.statusCode).toBe(200);
    expect((await apps[0]?.hit([[limited, 'k']]))?.statusCode).toBe(429);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect((await apps[0]?.hit([[limited, 'k']]))?.statusCode).toBe(200);
  });
});
