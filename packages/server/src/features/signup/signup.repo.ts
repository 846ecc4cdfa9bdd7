import type { Insertable, Kysely, Selectable, Transaction } from 'kysely';
import type { DB, SignupAttemptsTable } from '../../db/schema.js';

type Db = Kysely<DB> | Transaction<DB>;

export async function insertSignupAttempt(db: Db, row: Insertable<SignupAttemptsTable>): Promise<void> {
  await db.insertInto('signup_attempts').values(row).execute();
}

export async function findSignupAttempt(db: Db, id: string): Promise<Selectable<SignupAttemptsTable> | undefined> {
  return db.selectFrom('signup_attempts').selectAll().where('id', '=', id).executeTakeFirst();
}
