import type { Db } from '../db/schema.js';
import type { Clock } from './clock.js';

/** How often an instance removes the expired rows of one short-lived table. */
export const EXPIRY_SWEEP_INTERVAL_MS = 60 * 1000;

/**
 * Housekeeping of a table of short-lived rows (authorization requests waiting for their return,
 * answered nonces): the expired rows go at most once a minute per instance and database, not on
 * every request, where the DELETE would be one more commit of each. Every read of such a row
 * compares its expiry itself, so a row kept a minute past it only takes space.
 */
export function expirySweep(remove: (db: Db, now: number) => Promise<void>): (deps: { db: Db; clock: Clock }) => Promise<void> {
  const lastSweepBy = new WeakMap<Db, number>();
  return async (deps) => {
    const now = deps.clock.now();
    const last = lastSweepBy.get(deps.db);
    if (last !== undefined && now - last < EXPIRY_SWEEP_INTERVAL_MS) return;
    lastSweepBy.set(deps.db, now);
    await remove(deps.db, now);
  };
}
