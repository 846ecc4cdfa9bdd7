import type { Kysely } from 'kysely';

/**
 * Pending sign-ups (decision 0014). A sign-up's credential belongs to that sign-up, not to the
 * account: each attempt keeps its own password hash and names, and its verification links carry
 * the attempt's id. Verifying with a link activates that attempt's credential and drops every
 * other pending one, so whoever signed up first with someone else's email never keeps a password
 * on the account (account pre-hijacking). `mailed` says what the attempt sent, so the "someone
 * tried to sign up" notice can be limited per email.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('signup_attempts').addColumn('password_hash', 'text').execute();
  await db.schema.alterTable('signup_attempts').addColumn('first_name', 'text').execute();
  await db.schema.alterTable('signup_attempts').addColumn('last_name', 'text').execute();
  await db.schema.alterTable('signup_attempts').addColumn('phone_number', 'text').execute();
  await db.schema.alterTable('signup_attempts').addColumn('mailed', 'text').execute();
  await db.schema.createIndex('signup_attempts_email_key_created_idx').on('signup_attempts').columns(['email_key', 'created_at']).execute();
  await db.schema.alterTable('email_tokens').addColumn('signup_id', 'text').execute();
  await db.schema.createIndex('email_tokens_signup_id_idx').on('email_tokens').column('signup_id').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('email_tokens_signup_id_idx').execute();
  await db.schema.alterTable('email_tokens').dropColumn('signup_id').execute();
  await db.schema.dropIndex('signup_attempts_email_key_created_idx').execute();
  for (const column of ['mailed', 'phone_number', 'last_name', 'first_name', 'password_hash']) {
    await db.schema.alterTable('signup_attempts').dropColumn(column).execute();
  }
}
