import { PostgresAdapter, sql } from 'kysely';
import type { Db } from './schema.js';

/**
 * Makes the transactions that call this with the same key take turns until they end: a
 * check-then-write (the newest link only, a daily cap) stays exact when requests race. On
 * PostgreSQL a transaction-scoped advisory lock on the key's hash, so the next statement of the
 * transaction that waited sees what the other committed (READ COMMITTED takes a fresh snapshot per
 * statement); nothing else waits on it, and it ends with the transaction. On SQLite nothing: its
 * transactions write one at a time already. Outside a transaction it would hold nothing, so that
 * is refused.
 */
export async function takeTurns(db: Db, key: string): Promise<void> {
  if (!db.isTransaction) throw new Error('takeTurns needs a transaction');
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`select pg_advisory_xact_lock(hashtextextended(${key}, 0))`.execute(db);
}
