import { Redis } from 'ioredis';
import type { FastifyReply } from 'fastify';
import type { Clock } from './clock.js';
import { sha256Hex } from './crypto.js';
import { AppError } from './errors.js';

/**
 * Fixed-window rate limits (ASVS V2.4.1: anti-automation). A rule names a bucket and how many
 * hits a key may make per window; features declare their rules beside their routes, so adding
 * one never touches this file.
 */
export interface RateRule {
  /** Unique per rule, e.g. `signup:ip`; part of the counter's key. */
  name: string;
  limit: number;
  windowMs: number;
}

export interface RateDecision {
  allowed: boolean;
  /** 0 when allowed; otherwise how long until the window ends. */
  retryAfterMs: number;
}

/** Counts hits of one key in one window; the key already names the window. */
export interface RateLimitStore {
  increment(key: string, windowMs: number): Promise<number>;
  close(): Promise<void>;
  /** Resolves when a remote store answers, rejects otherwise; absent for in-process stores. */
  probe?(): Promise<void>;
}

/** Readiness of the counters' store (features/health): undefined when it lives in this process. */
export type RateStoreHealth = 'ok' | 'down' | undefined;

/**
 * After a store failure the limiter stops asking it for this long: a frozen Redis would otherwise
 * add a command timeout to every rule of every request.
 */
const STORE_COOL_DOWN_MS = 5000;

/** One process's counters: right for one instance, and for tests. */
export class MemoryRateLimitStore implements RateLimitStore {
  private readonly counts = new Map<string, { count: number; expiresAt: number }>();
  private sweepAt = 0;

  constructor(private readonly clock: Clock) {}

  async increment(key: string, windowMs: number): Promise<number> {
    const now = this.clock.now();
    this.sweep(now);
    const entry = this.counts.get(key);
    if (entry === undefined || entry.expiresAt <= now) {
      this.counts.set(key, { count: 1, expiresAt: now + windowMs });
      return 1;
    }
    entry.count += 1;
    return entry.count;
  }

  /** Drops finished windows at most once a minute, so memory follows the live keys only. */
  private sweep(now: number): void {
    if (now < this.sweepAt) return;
    this.sweepAt = now + 60_000;
    for (const [key, entry] of this.counts) if (entry.expiresAt <= now) this.counts.delete(key);
  }

  async close(): Promise<void> {
    this.counts.clear();
  }
}

/**
 * RATE_LIMITS=off (decision 0010): counts nothing, so every hit is allowed. Only for the
 * benchmark harness, whose load comes from one address; app.ts logs a warning when it is used.
 */
export class DisabledRateLimitStore implements RateLimitStore {
  async increment(): Promise<number> {
    return 0;
  }

  async close(): Promise<void> {}
}

/**
 * Counters in Redis, shared by every instance (ARCHITECTURE.md: growing past one machine).
 * INCR and PEXPIRE run in one MULTI, so a counter never lives without its expiry. The key names
 * its window, and the expiry is the window's end, so setting it on every hit is exact (and needs
 * no Redis 7 `NX`).
 */
export class RedisRateLimitStore implements RateLimitStore {
  private readonly redis: Redis;

  constructor(url: string) {
    this.redis = new Redis(url, {
      // A down Redis must answer fast (the limiter then lets the request through) rather than
      // queue commands and hold requests open.
      maxRetriesPerRequest: 1,
      commandTimeout: 1000,
      connectTimeout: 1000,
      lazyConnect: true,
    });
    // Errors surface through the commands; without a listener ioredis prints them to stderr.
    this.redis.on('error', () => undefined);
  }

  async increment(key: string, windowMs: number): Promise<number> {
    if (this.redis.status === 'wait') await this.redis.connect();
    const results = await this.redis.multi().incr(key).pexpire(key, windowMs).exec();
    const [incrError, count] = results?.[0] ?? [new Error('no answer from Redis'), null];
    if (incrError !== null || typeof count !== 'number') throw incrError ?? new Error('unexpected INCR answer');
    return count;
  }

  async probe(): Promise<void> {
    if (this.redis.status === 'wait') await this.redis.connect();
    await this.redis.ping();
  }

  async close(): Promise<void> {
    // QUIT only on a live connection; one still (re)connecting would hold QUIT in its queue.
    if (this.redis.status !== 'ready') {
      this.redis.disconnect();
      return;
    }
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}

export class RateLimiter {
  /** Wall-clock time (not the injected clock) until which the store is left alone. */
  private storeDownUntil = 0;

  constructor(
    private readonly store: RateLimitStore,
    private readonly clock: Clock,
    /** Called when the store fails; the hit is then allowed (see hit). */
    private readonly onStoreError: (error: unknown, rule: RateRule) => void = () => undefined,
  ) {}

  /**
   * Counts one hit of `key` (a client address, a normalised email) against a rule. Keys are
   * hashed, so the store never holds an email address. A failing store lets the hit through:
   * these limits curb abuse, while the hard protections (the sign-in lockout, single-use
   * tokens) live in the database and do not depend on them.
   */
  async hit(rule: RateRule, key: string): Promise<RateDecision> {
    const now = this.clock.now();
    const window = Math.floor(now / rule.windowMs);
    const windowEnd = (window + 1) * rule.windowMs;
    const storeKey = `foyer:rl:${rule.name}:${window}:${sha256Hex(key).slice(0, 32)}`;
    if (Date.now() < this.storeDownUntil) return { allowed: true, retryAfterMs: 0 };
    let count: number;
    try {
      count = await this.store.increment(storeKey, windowEnd - now);
    } catch (error) {
      this.storeDownUntil = Date.now() + STORE_COOL_DOWN_MS;
      this.onStoreError(error, rule);
      return { allowed: true, retryAfterMs: 0 };
    }
    return count <= rule.limit ? { allowed: true, retryAfterMs: 0 } : { allowed: false, retryAfterMs: windowEnd - now };
  }

  /**
   * Whether the shared store answers. While it does not, every limit is off (hits are allowed),
   * which readiness must show rather than hide (decision 0011).
   */
  async health(): Promise<RateStoreHealth> {
    if (this.store.probe === undefined) return undefined;
    try {
      await this.store.probe();
      // It answers again: count from now on rather than at the end of the cool-down.
      this.storeDownUntil = 0;
      return 'ok';
    } catch {
      this.storeDownUntil = Math.max(this.storeDownUntil, Date.now() + STORE_COOL_DOWN_MS);
      return 'down';
    }
  }

  close(): Promise<void> {
    return this.store.close();
  }
}

/**
 * Counts a hit on every rule given (all are counted, so a flood on one key cannot hide behind
 * another's refusal) and throws 429 `rateLimitExeeded` with Retry-After when any refuses.
 */
export async function enforceRateLimits(
  limiter: RateLimiter,
  reply: FastifyReply,
  hits: ReadonlyArray<readonly [rule: RateRule, key: string]>,
): Promise<void> {
  let retryAfterMs = 0;
  const refused: string[] = [];
  for (const [rule, key] of hits) {
    const decision = await limiter.hit(rule, key);
    if (!decision.allowed) {
      retryAfterMs = Math.max(retryAfterMs, decision.retryAfterMs);
      refused.push(rule.name);
    }
  }
  if (retryAfterMs > 0) {
    // ASVS V16.3.3: attempts against an anti-automation control are logged (rule names only).
    reply.log.warn({ rules: refused }, 'rate limit exceeded');
    void reply.header('retry-after', String(Math.ceil(retryAfterMs / 1000)));
    throw new AppError('rateLimitExeeded');
  }
}
