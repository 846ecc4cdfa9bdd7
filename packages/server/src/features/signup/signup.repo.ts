import type { Insertable, Selectable } from 'kysely';
import { preparedStatement } from '../../db/prepared.js';
import type { Db, SignupAttemptsTable } from '../../db/schema.js';

export type SignupAttemptRow = Selectable<SignupAttemptsTable>;

export async function insertSignupAttempt(db: Db, row: Insertable<SignupAttemptsTable>): Promise<void> {
  await db.insertInto('signup_attempts').values(row).execute();
}

export async function findSignupAttempt(db: Db, id: string): Promise<SignupAttemptRow | undefined> {
  return db.selectFrom('signup_attempts').selectAll().where('id', '=', id).executeTakeFirst();
}

/**
 * Every failed sign-in asks for the email's recent pending sign-ups (signin.service.ts), so this
 * read is compiled once and, on PostgreSQL, prepared once per connection (decision 0029).
 */
const pendingCredentials = preparedStatement(
  'foyer_signup_pending_credentials',
  ['emailKey', 'since', 'limit'],
  (db: Db, input: { emailKey: string; since: number; limit: number }) =>
    db
      .selectFrom('signup_attempts')
      .select(['id', 'password_hash'])
      .where('email_key', '=', input.emailKey)
      .where('created_at', '>', input.since)
      .where('password_hash', 'is not', null)
      .orderBy('created_at', 'desc')
      .limit(input.limit),
);

/** The email's sign-ups since `since` that still hold a credential, newest first. */
export async function findPendingCredentials(
  db: Db,
  input: { emailKey: string; since: number; limit: number },
): Promise<Pick<SignupAttemptRow, 'id' | 'password_hash'>[]> {
  return (await pendingCredentials(db, input)).rows;
}

/** Forgets the credential and names of every pending sign-up of an email (decision 0014). */
export async function dropPendingCredentials(db: Db, emailKey: string): Promise<void> {
  await db
    .updateTable('signup_attempts')
    .set({ password_hash: null, first_name: null, last_name: null, phone_number: null })
    .where('email_key', '=', emailKey)
    .where('password_hash', 'is not', null)
    .execute();
}

/** How many "someone tried to sign up" notices an email was sent since `since`. */
export async function countNotices(db: Db, emailKey: string, since: number): Promise<number> {
  const row = await db
    .selectFrom('signup_attempts')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .where('email_key', '=', emailKey)
    .where('mailed', '=', 'notice')
    .where('created_at', '>', since)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

export async function setAttemptMailed(db: Db, id: string, mailed: string): Promise<void> {
  await db.updateTable('signup_attempts').set({ mailed }).where('id', '=', id).execute();
}
