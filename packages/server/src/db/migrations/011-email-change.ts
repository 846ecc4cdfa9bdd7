import type { Kysely } from 'kysely';

/**
 * Decision 0023: the address an email-change link moves its account to. Set only on tokens of
 * the `emailChange` purpose; null for every other kind.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('email_tokens').addColumn('new_email', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('email_tokens').dropColumn('new_email').execute();
}
