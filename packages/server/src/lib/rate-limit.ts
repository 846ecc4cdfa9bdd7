import fastifyRateLimit, { type CreateRateLimitOptions } from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isIPv6 } from 'node:net';
import type * as IORedis from 'ioredis';
import type { Redis } from 'ioredis';
import type { Config } from '../config.js';
import { sha256Hex } from './crypto.js';
import { AppError } from './errors.js';
import { loadOnUse } from './load-on-use.js';
import { clientAddress } from './trust-proxy.js';

/**
 * Rate limits (ASVS V2.4.1: anti-automation), counted by @fastify/rate-limit: in this process's
 * memory, or in Redis when REDIS_URL is set so every instance shares them (decision 0017). A rule
 * names a bucket and how many hits one key may make per window; features declare their rules
 * beside their routes (`*.limits.ts`), and a route lists its rules with the key each counts by
 * (lib/call-route.ts), so adding one never touches this file.
 */
export interface RateRule {
  /** Unique per rule, e.g. `signup:ip`: the counters' namespace. */
  name: string;
  limit: number;
  windowMs: number;
}

/**
 * The client an address-keyed limit counts (decisions 0010, 0017): an IPv4 address as it is, an
 * IPv6 address by its /64. One host, or one home or office, usually holds a whole /64 and can
 * send from any address in it, so counting each address alone would give it billions of budgets.
 * An IPv4-mapped IPv6 address counts as its IPv4 address.
 */
export function clientKey(ip: string): string {
  const address = ip.split('%')[0] ?? ip;
  if (!isIPv6(address)) return address;
  const groups = ipv6Groups(address);
  if (groups === undefined) return address;
  // ::ffff:a.b.c.d however written (an IPv4 client seen through an IPv6 socket), and the old
  // IPv4-compatible ::a.b.c.d: the IPv4 address.
  const high = groups.slice(0, 5).every((group) => group === 0);
  if (high && (groups[5] === 0xffff || (groups[5] === 0 && (groups[6] ?? 0) !== 0))) {
    const [g6 = 0, g7 = 0] = groups.slice(6);
    return [g6 >> 8, g6 & 0xff, g7 >> 8, g7 & 0xff].join('.');
  }
  return `${groups
    .slice(0, 4)
    .map((group) => group.toString(16))
    .join(':')}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address (a trailing dotted IPv4 part is two of them). */
function ipv6Groups(address: string): number[] | undefined {
  let text = address.toLowerCase();
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted !== null) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const headParts = head === '' ? [] : head.split(':');
  const tailParts = tail === undefined || tail === '' ? [] : tail.split(':');
  const fill = tail === undefined ? 0 : 8 - headParts.length - tailParts.length;
  const groups = [...headParts, ...Array<string>(Math.max(0, fill)).fill('0'), ...tailParts].map((group) => parseInt(group, 16));
  return groups.length === 8 && groups.every((group) => Number.isInteger(group) && group >= 0 && group <= 0xffff) ? groups : undefined;
}

/** `clientKey` of the request's address (decision 0013 decides which address that is). */
export function clientOf(request: FastifyRequest): string {
  // Fastify has no address for a request whose socket is already gone.
  return clientKey(clientAddress(request));
}

/** Readiness of the counters' store (features/health): undefined when it lives in this process. */
export type RateStoreHealth = 'ok' | 'down' | undefined;

/**
 * After a store failure the limiter stops asking it for this long: a frozen Redis would otherwise
 * add a command timeout to every rule of every request (decision 0011).
 */
const STORE_COOL_DOWN_MS = 5000;
/**
 * Keys one rule keeps in memory without Redis. The plugin's store is a least-recently-used map,
 * so a flood of fresh keys costs bounded memory; a key being hit stays recent and is never the
 * one dropped.
 */
const MEMORY_KEYS_PER_RULE = 10_000;
/** Redis keys read `foyer:rl:…`, apart from anything else sharing the server. */
const REDIS_NAMESPACE = 'foyer:rl:';

type Check = ReturnType<FastifyInstance['createRateLimit']>;

/**
 * Counts hits through one @fastify/rate-limit limiter per rule (`createRateLimit`: the plugin's
 * own route hook skips every limiter after a request's first, and a route here has several).
 */
export class RateLimiter {
  private readonly checks = new Map<string, Check>();
  /** The key of each rule for a request, worked out by its route; read by the rule's key generator. */
  private readonly keys = new WeakMap<FastifyRequest, Map<string, string>>();
  /** Wall-clock time until which the store is left alone. */
  private storeDownUntil = 0;

  constructor(
    private readonly app: FastifyInstance,
    private readonly redis: Redis | undefined,
  ) {}

  private check(rule: RateRule): Check {
    const id = `${rule.name}/${rule.limit}/${rule.windowMs}`;
    let check = this.checks.get(id);
    if (check === undefined) {
      // `cache` reaches the plugin's memory store though its type leaves it out.
      const options: CreateRateLimitOptions & { cache: number } = {
        max: rule.limit,
        timeWindow: rule.windowMs,
        cache: MEMORY_KEYS_PER_RULE,
        // Failures reach enforce(), which decides (fail-open, below).
        skipOnError: false,
        // Hashed, so the store never holds an email address; the rule's name keeps rules apart.
        keyGenerator: (request) => `${rule.name}:${sha256Hex(this.keys.get(request)?.get(rule.name) ?? '').slice(0, 32)}`,
      };
      check = this.app.createRateLimit(options);
      this.checks.set(id, check);
    }
    return check;
  }

  /**
   * Counts one hit on every rule given (all are counted, so a flood on one key cannot hide
   * behind another's refusal) and throws 429 `rateLimitExeeded` with Retry-After, the longest
   * wait of the refusing rules, when any refuses.
   *
   * A failing store lets the request through (fail-open, decision 0017): these limits curb
   * abuse, while the hard protections (the sign-in lockout, single-use tokens) live in the
   * database and do not depend on Redis. Refusing every sign-in while Redis is down would turn
   * its outage into the whole service's.
   */
  async enforce(request: FastifyRequest, reply: FastifyReply, hits: ReadonlyArray<readonly [rule: RateRule, key: string]>): Promise<void> {
    if (hits.length === 0 || Date.now() < this.storeDownUntil) return;
    this.keys.set(request, new Map(hits.map(([rule, key]) => [rule.name, key])));
    let retryAfterSeconds = 0;
    const refused: string[] = [];
    try {
      for (const [rule] of hits) {
        const result = await this.check(rule)(request);
        if (!result.isAllowed && result.isExceeded) {
          retryAfterSeconds = Math.max(retryAfterSeconds, result.ttlInSeconds);
          refused.push(rule.name);
        }
      }
    } catch (error) {
      this.storeDownUntil = Date.now() + STORE_COOL_DOWN_MS;
      request.log.warn({ err: error }, 'rate-limit store failed; request allowed');
      return;
    } finally {
      this.keys.delete(request);
    }
    if (refused.length > 0) {
      // ASVS V16.3.3: attempts against an anti-automation control are logged (rule names only).
      request.log.warn({ rules: refused }, 'rate limit exceeded');
      void reply.header('retry-after', String(Math.max(1, retryAfterSeconds)));
      throw new AppError('rateLimitExeeded');
    }
  }

  /**
   * Whether the shared store answers. While it does not, every limit is off (hits are allowed),
   * which readiness must show rather than hide (decision 0011).
   */
  async health(): Promise<RateStoreHealth> {
    if (this.redis === undefined) return undefined;
    try {
      await this.redis.ping();
      // It answers again: count from now on rather than at the end of the cool-down.
      this.storeDownUntil = 0;
      return 'ok';
    } catch {
      this.storeDownUntil = Math.max(this.storeDownUntil, Date.now() + STORE_COOL_DOWN_MS);
      return 'down';
    }
  }

  async close(): Promise<void> {
    if (this.redis === undefined) return;
    // QUIT only on a live connection; one still (re)connecting would hold QUIT in its queue.
    if (this.redis.status !== 'ready') {
      this.redis.disconnect();
      return;
    }
    await this.redis.quit().catch(() => this.redis?.disconnect());
  }
}

/** The connection the counters share: answers fast when Redis is down rather than queueing. */
export function rateLimitRedis(url: string): Redis {
  const redis = new (loadOnUse<typeof IORedis>('ioredis').Redis)(url, {
    // A down Redis must answer fast (the limiter then lets the request through) rather than
    // queue commands and hold requests open.
    maxRetriesPerRequest: 1,
    commandTimeout: 1000,
    connectTimeout: 1000,
    lazyConnect: true,
  });
  // Errors surface through the commands; without a listener ioredis prints them to stderr.
  redis.on('error', () => undefined);
  return redis;
}

/** RATE_LIMITS=off (decision 0010): nothing is counted, every request is allowed. */
class DisabledRateLimiter extends RateLimiter {
  override async enforce(): Promise<void> {}
}

/**
 * Registers @fastify/rate-limit (no global limit: each route lists its rules) and decorates
 * `app.rateLimiter`. RATE_LIMITS=off is for the benchmark harness only and is said at warn,
 * since it removes a protection.
 */
export async function registerRateLimits(app: FastifyInstance, config: Pick<Config, 'rateLimits' | 'redisUrl'>): Promise<void> {
  if (!config.rateLimits) {
    app.log.warn('RATE_LIMITS=off: every rate limit is disabled');
    app.decorate('rateLimiter', new DisabledRateLimiter(app, undefined));
    return;
  }
  const redis = config.redisUrl === undefined ? undefined : rateLimitRedis(config.redisUrl);
  await app.register(fastifyRateLimit, {
    global: false,
    ...(redis === undefined ? {} : { redis, nameSpace: REDIS_NAMESPACE }),
  });
  app.decorate('rateLimiter', new RateLimiter(app, redis));
  app.addHook('onClose', async () => app.rateLimiter.close());
}
