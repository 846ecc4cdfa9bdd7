import type { Kysely } from 'kysely';

/**
 * Google sign-in (decision 0019).
 *
 * `social_auth_states`: what the authorization request needs at its return (the PKCE verifier and
 * the nonce), keyed by the SHA-256 of the browser's `state`, single use and short-lived. In the
 * database, not in one process's memory, so the return may reach any instance.
 *
 * `external_identities`: a person at an OpenID provider is the pair (issuer, subject); an email
 * address can change hands at the provider and is never the key. Many identities may lead to one
 * account.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('social_auth_states')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('code_verifier', 'text', (c) => c.notNull())
    .addColumn('nonce', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('used_at', 'bigint')
    .execute();
  await db.schema.createIndex('social_auth_states_expires_idx').on('social_auth_states').column('expires_at').execute();

  await db.schema
    .createTable('external_identities')
    .addColumn('issuer', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('last_used_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('external_identities_pk', ['issuer', 'subject'])
    .execute();
  await db.schema.createIndex('external_identities_user_idx').on('external_identities').column('user_id').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('external_identities').execute();
  await db.schema.dropTable('social_auth_states').execute();
}
