import type { ExpressionBuilder, Insertable, Selectable } from 'kysely';
import type { DB, Db, DevMailboxTable, MailOutboxTable } from '../../db/schema.js';

export type OutboxRow = Selectable<MailOutboxTable>;
export type DevMailboxRow = Selectable<DevMailboxTable>;

export async function insertOutbox(db: Db, row: Insertable<MailOutboxTable>): Promise<void> {
  await db.insertInto('mail_outbox').values(row).execute();
}

/** Unsent, sealed, due, and not held by a live claim of another worker. */
function claimable(now: number) {
  return (eb: ExpressionBuilder<DB, 'mail_outbox'>) =>
    eb.and([
      eb('sent_at', 'is', null),
      eb('bounced_at', 'is', null),
      // Left unsealed by migration 006 until the next boot seals it (mail.plugin.ts).
      eb('sealed_content', 'like', 'v1.%'),
      eb('next_attempt_at', '<=', now),
      eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', now)]),
    ]);
}

/**
 * Claims up to `limit` due rows until `leaseUntil` in one statement, and returns them. Safe with
 * many workers: SQLite runs one writer at a time, and PostgreSQL (read committed) re-checks the
 * outer WHERE on a row another claimer changed meanwhile, so each row goes to one worker only.
 */
export async function claimDue(db: Db, input: { now: number; leaseUntil: number; limit: number }): Promise<OutboxRow[]> {
  const { now, leaseUntil, limit } = input;
  return db
    .updateTable('mail_outbox')
    .set({ locked_until: leaseUntil })
    .where('id', 'in', (eb) => eb.selectFrom('mail_outbox').select('id').where(claimable(now)).orderBy('next_attempt_at').limit(limit))
    .where(claimable(now))
    .returningAll()
    .execute();
}

/** Delivered: the body goes (decision 0012); who, what kind and when stay. */
export async function markSent(db: Db, id: string, at: number): Promise<void> {
  await db
    .updateTable('mail_outbox')
    .set((eb) => ({ sent_at: at, sealed_content: null, locked_until: null, last_error: null, attempts: eb('attempts', '+', 1) }))
    .where('id', '=', id)
    .execute();
}

/**
 * Schedules the next attempt, only while the claim `lease` is still this worker's: a row handed
 * back at shutdown is due at once, not pushed back by the send that was given up on.
 */
export async function markFailed(db: Db, id: string, input: { lease: number; attempts: number; nextAttemptAt: number; error: string }): Promise<void> {
  await db
    .updateTable('mail_outbox')
    .set({ attempts: input.attempts, next_attempt_at: input.nextAttemptAt, locked_until: null, last_error: input.error })
    .where('id', '=', id)
    .where('locked_until', '=', input.lease)
    .execute();
}

/**
 * Refused for good by the receiving server: never claimed again, and, as for a delivered message,
 * its body goes (who, what kind, when and the refusal stay). Only while the claim is this worker's.
 */
export async function markBounced(db: Db, id: string, input: { lease: number; attempts: number; at: number; error: string }): Promise<void> {
  await db
    .updateTable('mail_outbox')
    .set({ bounced_at: input.at, sealed_content: null, attempts: input.attempts, locked_until: null, last_error: input.error })
    .where('id', '=', id)
    .where('locked_until', '=', input.lease)
    .execute();
}

/** Hands unsent rows of a claim back to the outbox, due at once, for the next worker to send. */
export async function releaseClaims(db: Db, ids: readonly string[], lease: number): Promise<void> {
  if (ids.length === 0) return;
  await db
    .updateTable('mail_outbox')
    .set({ locked_until: null })
    .where('id', 'in', ids)
    .where('locked_until', '=', lease)
    .where('sent_at', 'is', null)
    .where('bounced_at', 'is', null)
    .execute();
}

/** What migration 006 left unsealed (sealed at boot by mail.plugin.ts). */
export async function listUnsealed(db: Db): Promise<Array<Pick<OutboxRow, 'id' | 'to_address' | 'sealed_content'>>> {
  return (
    db
      .selectFrom('mail_outbox')
      .select(['id', 'to_address', 'sealed_content'])
      // Unsent only (the partial due index): delivered rows lost their bodies in the migration.
      .where('sent_at', 'is', null)
      .where('sealed_content', 'like', 'unsealed.%')
      .execute()
  );
}

export async function replaceContent(db: Db, id: string, input: { from: string; to: string }): Promise<void> {
  await db.updateTable('mail_outbox').set({ sealed_content: input.to }).where('id', '=', id).where('sealed_content', '=', input.from).execute();
}

/** Rows for one recipient, oldest first (tests and operations). */
export async function listOutbox(db: Db, filter: { to?: string; kind?: string } = {}): Promise<OutboxRow[]> {
  let query = db.selectFrom('mail_outbox').selectAll().orderBy('created_at').orderBy('id');
  if (filter.to !== undefined) query = query.where('to_address', '=', filter.to);
  if (filter.kind !== undefined) query = query.where('kind', '=', filter.kind);
  return query.execute();
}

/** Stores a delivered message once, however often it is delivered. */
export async function insertDevMailbox(db: Db, row: DevMailboxRow): Promise<void> {
  await db
    .insertInto('dev_mailbox')
    .values(row)
    .onConflict((oc) => oc.column('id').doNothing())
    .execute();
}

export async function listDevMailbox(db: Db, filter: { to?: string; limit: number }): Promise<DevMailboxRow[]> {
  let query = db.selectFrom('dev_mailbox').selectAll().orderBy('delivered_at', 'desc').orderBy('id', 'desc').limit(filter.limit);
  // Addresses are stored as typed; a search finds them in any letter case.
  if (filter.to !== undefined) query = query.where((eb) => eb(eb.fn('lower', ['to_address']), '=', filter.to?.toLowerCase() ?? ''));
  return query.execute();
}

export async function findDevMailboxMessage(db: Db, id: string): Promise<DevMailboxRow | undefined> {
  return db.selectFrom('dev_mailbox').selectAll().where('id', '=', id).executeTakeFirst();
}
