import type { Kysely } from 'kysely';

/**
 * Password history (decision 0010): the hashes an account had before its current one, so a reset
 * can refuse a recent password (spec §8 recentPassword). Only argon2id hashes are kept, never
 * passwords; `seq` orders them per account without relying on two changes having different
 * millisecond times. Only the last five are kept (the reset prunes the rest).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('password_history')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('password_history_user_seq_idx').on('password_history').columns(['user_id', 'seq']).unique().execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('password_history').execute();
}
