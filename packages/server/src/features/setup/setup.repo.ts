import type { Db, SignupAttemptsTable } from '../../db/schema.js';

export type PendingCredential = Pick<SignupAttemptsTable, 'first_name' | 'last_name' | 'phone_number'> & { password_hash: string };

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

/**
 * Decision 0014: gives an unverified account the credential and names of the sign-up whose link
 * was clicked, replacing whatever an earlier sign-up left, and marks the email verified. Only
 * while the account is unverified: false when it was verified meanwhile (then nothing changes).
 */
export async function activateSignup(db: Db, userId: string, attempt: PendingCredential, now: number): Promise<boolean> {
  const result = await db
    .updateTable('users')
    .set({
      password_hash: attempt.password_hash,
      ...(attempt.first_name === null ? {} : { first_name: attempt.first_name }),
      ...(attempt.last_name === null ? {} : { last_name: attempt.last_name }),
      ...(attempt.phone_number === null ? {} : { phone_number: attempt.phone_number }),
      email_verified_at: now,
      updated_at: now,
    })
    .where('id', '=', userId)
    .where('email_verified_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}
