import { Redis } from 'ioredis';

/** The Redis the rate-limit tests share counters through (a real one, STYLE.md). */
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

async function answers(url: string): Promise<boolean> {
  const redis = new Redis(url, { lazyConnect: true, connectTimeout: 2000, maxRetriesPerRequest: 0, retryStrategy: () => null });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    return (await redis.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    redis.disconnect();
  }
}

/**
 * Whether Redis-backed tests can run. CI sets REQUIRE_REDIS=1 and fails here when Redis does not
 * answer; elsewhere the suites skip with one clear line instead of a wall of connection errors.
 */
export async function redisAvailable(): Promise<boolean> {
  if (await answers(TEST_REDIS_URL)) return true;
  if (process.env.REQUIRE_REDIS === '1') throw new Error(`Redis not reachable at ${TEST_REDIS_URL} and REQUIRE_REDIS=1`);
  console.warn(`Redis not reachable at ${TEST_REDIS_URL} — Redis-backed rate-limit tests are skipped`);
  return false;
}
