import type { Kysely } from 'kysely';
import type { DB, Db } from '../db/schema.js';
import type { Clock } from './clock.js';

/**
 * One piece of work: where its statements run (the database, or one transaction on it) and the
 * one moment it happens at. Every row a piece of work writes carries the same `now`, so an audit
 * entry, the token it issued and the mail it queued agree on when they happened.
 */
export interface UnitOfWork {
  readonly db: Db;
  readonly now: number;
}

/** Work outside a transaction: each statement commits on its own. */
export function unitOfWork(deps: { db: Db; clock: Clock }): UnitOfWork {
  return { db: deps.db, now: deps.clock.now() };
}

/** Runs `work` in one transaction: everything it writes is kept, or nothing is. */
export function inTransaction<T>(deps: { db: Kysely<DB>; clock: Clock }, work: (uow: UnitOfWork) => Promise<T>): Promise<T> {
  return deps.db.transaction().execute((trx) => work({ db: trx, now: deps.clock.now() }));
}
