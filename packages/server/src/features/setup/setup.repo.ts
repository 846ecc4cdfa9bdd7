import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../../db/schema.js';

type Db = Kysely<DB> | Transaction<DB>;

export interface SetupValues {
  firstName?: string;
  lastName?: string;
  phoneNumber?: string;
  passwordHash?: string;
}

/**
 * Writes what setup collected and marks the email verified. The password and the verification
 * time are set only where none is stored yet, inside the statement itself: setup can never
 * replace an existing password, even racing another setup of the same account.
 */
export async function completeUserSetup(db: Db, userId: string, values: SetupValues, now: number): Promise<void> {
  await db
    .updateTable('users')
    .set((eb) => ({
      ...(values.firstName === undefined ? {} : { first_name: values.firstName }),
      ...(values.lastName === undefined ? {} : { last_name: values.lastName }),
      ...(values.phoneNumber === undefined ? {} : { phone_number: values.phoneNumber }),
      ...(values.passwordHash === undefined ? {} : { password_hash: eb.fn.coalesce('password_hash', eb.val(values.passwordHash)) }),
      email_verified_at: eb.fn.coalesce('email_verified_at', eb.val(now)),
      updated_at: now,
    }))
    .where('id', '=', userId)
    .execute();
}
