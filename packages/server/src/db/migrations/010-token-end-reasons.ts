import type { Kysely } from 'kysely';

/**
 * Why an emailed token stopped working (decision 0020): `used` by its own screen's POST,
 * `superseded` by a newer link of the same kind, `completed` when the account's setup or
 * verification was finished through another link or sign-in, `passwordReset` when a reset ended
 * it. Null while the token is open, and for tokens that ended before this column existed. The
 * setup screens tell a reused or superseded verification link from a dead one by it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('email_tokens').addColumn('ended_reason', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('email_tokens').dropColumn('ended_reason').execute();
}
