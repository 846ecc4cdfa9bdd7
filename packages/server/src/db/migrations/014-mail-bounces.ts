import type { Kysely } from 'kysely';

/**
 * Decision 0009: a message the receiving server refused for good (a 5xx answer to its recipient or
 * to its content) is not sent again. `bounced_at` says when; its body goes as a delivered one's does.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('mail_outbox').addColumn('bounced_at', 'bigint').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('mail_outbox').dropColumn('bounced_at').execute();
}
