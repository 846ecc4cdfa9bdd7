import { onTestFinished, vi } from 'vitest';
import type { TestApp } from './helpers.js';

/**
 * The rate limits' counters (@fastify/rate-limit's memory store) read the wall clock, not the
 * app's injected one. A test that lets a window pass calls this first: until it ends, Date stands
 * at the app clock's time and moves only with `advance`, so a window's end is exact. Only Date is
 * faked; timers stay real, so the database, argon2 and mail run as usual.
 */
export function limiterTime(t: TestApp): { advance(ms: number): void } {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(t.clock.now());
  onTestFinished(() => {
    vi.useRealTimers();
  });
  return {
    advance(ms: number) {
      t.clock.advance(ms);
      vi.setSystemTime(t.clock.now());
    },
  };
}
