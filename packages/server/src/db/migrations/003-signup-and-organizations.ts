import type { Kysely } from 'kysely';

/**
 * Sign-up, account setup and invitations: organisations and the email domains they claim,
 * emailed single-use tokens, sign-up attempts (the opaque `userId` of the sign-up answer) and
 * the attribution captured with an account. users.org_id (migration 001) points at organizations.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('organizations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('name_key', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('organization_domains')
    .addColumn('domain', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('sso_required', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('organization_domains_org_id_idx').on('organization_domains').column('org_id').execute();

  await db.schema
    .createTable('email_tokens')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('purpose', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('used_at', 'bigint')
    .execute();
  await db.schema.createIndex('email_tokens_user_purpose_idx').on('email_tokens').columns(['user_id', 'purpose']).execute();

  await db.schema
    .createTable('signup_attempts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('email_key', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('signup_attempts_email_key_idx').on('signup_attempts').column('email_key').execute();

  await db.schema
    .createTable('user_attribution')
    .addColumn('user_id', 'text', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('signup_source', 'text')
    .addColumn('initial_intent', 'text')
    .addColumn('utm_medium', 'text')
    .addColumn('utm_campaign', 'text')
    .addColumn('utm_source', 'text')
    .addColumn('utm_term', 'text')
    .addColumn('gclid', 'text')
    .addColumn('ga_id', 'text')
    .addColumn('hubspot_token', 'text')
    .addColumn('is_marketing_test', 'integer')
    .addColumn('redirect_to', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('user_attribution').execute();
  await db.schema.dropTable('signup_attempts').execute();
  await db.schema.dropTable('email_tokens').execute();
  await db.schema.dropTable('organization_domains').execute();
  await db.schema.dropTable('organizations').execute();
}
