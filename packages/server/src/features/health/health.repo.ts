import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import type { DB } from '../../db/schema.js';

export async function pingDatabase(db: Kysely<DB>): Promise<void> {
  await sql`select 1`.execute(db);
}

export interface MailBacklog {
  /** Unsent rows due now (retries waiting for their next attempt are not yet due). */
  due: number;
  /** created_at of the oldest of them; null when none is due. */
  oldestCreatedAt: number | null;
}

/** Served by the outbox's partial index on unsent rows, however much sent mail there is. */
export async function readMailBacklog(db: Kysely<DB>, now: number): Promise<MailBacklog> {
  const row = await db
    .selectFrom('mail_outbox')
    .select((eb) => [eb.fn.countAll().as('due'), eb.fn.min('created_at').as('oldest')])
    .where('sent_at', 'is', null)
    .where('bounced_at', 'is', null)
    .where('next_attempt_at', '<=', now)
    .executeTakeFirst();
  const oldest = row?.oldest;
  return { due: Number(row?.due ?? 0), oldestCreatedAt: oldest === null || oldest === undefined ? null : Number(oldest) };
}

/**
 * Names of the migrations this database has applied, from Kysely's bookkeeping table (in the
 * schema the migrator pinned it to, which is first on the search path; db/migrate.ts).
 */
export async function readAppliedMigrations(db: Kysely<DB>): Promise<string[]> {
  const result = await sql<{ name: string }>`select name from kysely_migration`.execute(db);
  return result.rows.map((row) => row.name);
}
