import { randomBytes } from 'node:crypto';
import { createConnection, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { limiterApp } from '../../test/limiter-app.js';
import { TEST_REDIS_URL, redisAvailable } from '../../test/redis.js';
import type { RateRule } from './rate-limit.js';

const redisUp = await redisAvailable();

/**
 * A TCP relay to the test Redis that can be frozen: while frozen it stops reading what clients
 * send (commands wait, as on a Redis stuck in a long command or a lost network), and thawed it
 * passes everything on, late answers included, as such a Redis does when it recovers.
 */
class FreezableRelay {
  frozen = false;
  private readonly clients = new Set<Socket>();
  private constructor(private readonly server: Server) {}

  static async start(target: URL): Promise<FreezableRelay> {
    const server = createServer();
    const relay = new FreezableRelay(server);
    server.on('connection', (client) => {
      const upstream = createConnection(Number(target.port || 6379), target.hostname);
      relay.clients.add(client);
      client.pipe(upstream).pipe(client);
      if (relay.frozen) client.pause();
      const drop = () => {
        relay.clients.delete(client);
        client.destroy();
        upstream.destroy();
      };
      client.on('close', drop).on('error', drop);
      upstream.on('close', drop).on('error', drop);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return relay;
  }

  get url(): string {
    return `redis://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  freeze(): void {
    this.frozen = true;
    for (const client of this.clients) client.pause();
  }

  thaw(): void {
    this.frozen = false;
    for (const client of this.clients) client.resume();
  }

  close(): Promise<void> {
    for (const client of this.clients) client.destroy();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await work();
  return { value, ms: performance.now() - started };
}

/**
 * Decision 0017 (fail-open, as in 0010 and 0011): a Redis that does not answer lets requests
 * through rather than refusing them, a frozen one adds its command timeout to one request in
 * five seconds rather than to every rule of every request, and readiness says the limits are off.
 */
describe.skipIf(!redisUp)('rate limits while Redis does not answer', () => {
  let relay: FreezableRelay;
  beforeAll(async () => {
    relay = await FreezableRelay.start(new URL(TEST_REDIS_URL));
  });
  afterAll(async () => {
    await relay.close();
  });

  it('lets requests through, leaves Redis alone for a while, says it is down, and counts again once it answers', async () => {
    const limiter = await limiterApp(relay.url);
    const limited: RateRule = { name: `test:${randomBytes(4).toString('hex')}`, limit: 2, windowMs: 60_000 };
    try {
      expect((await limiter.hit([[limited, 'k']])).statusCode).toBe(200);

      relay.freeze();
      // The first request waits for the command timeout (1 s), then goes through.
      const first = await timed(() => limiter.hit([[limited, 'k']]));
      expect(first.value.statusCode).toBe(200);
      expect(first.ms).toBeGreaterThan(800);
      // Then Redis is left alone: over the limit, yet allowed at once.
      for (let i = 0; i < 3; i++) {
        const next = await timed(() => limiter.hit([[limited, 'k']]));
        expect(next.value.statusCode).toBe(200);
        expect(next.ms).toBeLessThan(500);
      }
      expect(await limiter.app.rateLimiter.health()).toBe('down');

      relay.thaw();
      expect(await limiter.app.rateLimiter.health()).toBe('ok');
      // Counting resumed at once: the counter held 2 (the frozen hit arrived late), so this is refused.
      expect((await limiter.hit([[limited, 'k']])).statusCode).toBe(429);
    } finally {
      relay.thaw();
      await limiter.close();
    }
  });
});

describe('rate limits when Redis cannot be reached at all', () => {
  it('lets requests through and says it is down', async () => {
    const limiter = await limiterApp('redis://127.0.0.1:9');
    try {
      const first = await timed(() => limiter.hit([[{ name: 'test:unreachable', limit: 1, windowMs: 60_000 }, 'k']]));
      expect(first.value.statusCode).toBe(200);
      expect(first.ms).toBeLessThan(5000);
      expect(await limiter.app.rateLimiter.health()).toBe('down');
    } finally {
      await limiter.close();
    }
  });
});
