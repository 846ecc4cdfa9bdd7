import { describe, expect, it } from 'vitest';
import { ManualClock, MINUTE } from '../../test/helpers.js';
import { RateLimiter, type RateLimitStore } from './rate-limit.js';

const RULE = { name: 'test:cool-down', limit: 3, windowMs: MINUTE };

/**
 * Decision 0011: a frozen Redis must not add its command timeout to every rule of every request,
 * and readiness must say the limits are off meanwhile.
 */
describe('RateLimiter with a failing store', () => {
  it('leaves the store alone for a while after it failed, and says it is down', async () => {
    let calls = 0;
    let answers = false;
    const store: RateLimitStore = {
      increment: async () => {
        calls += 1;
        if (!answers) throw new Error('Command timed out');
        return 1;
      },
      probe: async () => {
        if (!answers) throw new Error('Command timed out');
      },
      close: async () => undefined,
    };
    const limiter = new RateLimiter(store, new ManualClock());
    expect(await limiter.hit(RULE, 'a')).toEqual({ allowed: true, retryAfterMs: 0 });
    for (let i = 0; i < 5; i++) await limiter.hit(RULE, 'a');
    expect(calls).toBe(1);
    expect(await limiter.health()).toBe('down');

    answers = true;
    expect(await limiter.health()).toBe('ok');
    await limiter.hit(RULE, 'a');
    expect(calls).toBe(2);
  });

  it('has nothing to report for a store in this process', async () => {
    const store: RateLimitStore = { increment: async () => 1, close: async () => undefined };
    expect(await new RateLimiter(store, new ManualClock()).health()).toBeUndefined();
  });
});
