import type { Kysely } from 'kysely';

/**
 * The community forum and device tokens (decision 0021).
 *
 * `sessions.kind`: `browser` for a sign-in's session, `device` for the long-lived device token a
 * native client gets from `exchange/otterToken`. One table, so everything that ends an account's
 * sessions (password reset, deactivation, a Google takeover) ends its device tokens too.
 *
 * `discourse_nonces`: every DiscourseConnect nonce Foyer answered, so each is answered once.
 * Kept past Discourse's own 10-minute nonce lifetime, then removed.
 *
 * `community_terms`: which version of the community terms an account accepted, and when (the
 * audit trail holds the same fact with the request's origin).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('sessions')
    .addColumn('kind', 'text', (c) => c.notNull().defaultTo('browser'))
    .execute();

  await db.schema
    .createTable('discourse_nonces')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('answered_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('discourse_nonces_expires_idx').on('discourse_nonces').column('expires_at').execute();

  await db.schema
    .createTable('community_terms')
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('terms_version', 'text', (c) => c.notNull())
    .addColumn('agreed_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('community_terms_pk', ['user_id', 'terms_version'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('community_terms').execute();
  await db.schema.dropTable('discourse_nonces').execute();
  await db.schema.alterTable('sessions').dropColumn('kind').execute();
}
