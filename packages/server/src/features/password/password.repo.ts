import type { Db } from '../../db/schema.js';
import { randomId } from '../../lib/crypto.js';

/** Earlier passwords a new one must differ from, besides the current one (decision 0010). */
export const PASSWORD_HISTORY_SIZE = 5;

/** The account's earlier password hashes, newest first. */
export async function recentPasswordHashes(db: Db, userId: string, limit: number = PASSWORD_HISTORY_SIZE): Promise<string[]> {
  const rows = await db.selectFrom('password_history').select('password_hash').where('user_id', '=', userId).orderBy('seq', 'desc').limit(limit).execute();
  return rows.map((row) => row.password_hash);
}

/**
 * Keeps a replaced hash as the newest history entry and forgets all but the newest `keep`.
 * Run inside the transaction that changes the password, after the account's row was updated:
 * that row lock serialises two changes of one account, so `seq` cannot be taken twice (and the
 * unique index would refuse it if it were).
 */
export async function pushPasswordHistory(db: Db, input: { userId: string; passwordHash: string; now: number; keep?: number }): Promise<void> {
  const keep = input.keep ?? PASSWORD_HISTORY_SIZE;
  const last = await db
    .selectFrom('password_history')
    .select((eb) => eb.fn.max('seq').as('seq'))
    .where('user_id', '=', input.userId)
    .executeTakeFirst();
  const seq = Number(last?.seq ?? 0) + 1;
  await db
    .insertInto('password_history')
    .values({ id: randomId(), user_id: input.userId, seq, password_hash: input.passwordHash, created_at: input.now })
    .execute();
  await db
    .deleteFrom('password_history')
    .where('user_id', '=', input.userId)
    .where('seq', '<=', seq - keep)
    .execute();
}

/**
 * Stores a new password hash; the email counts as verified from now on if it was not yet (the
 * reset link reached it, which is the proof verification asks for).
 */
export async function setResetPassword(db: Db, userId: string, passwordHash: string, now: number): Promise<void> {
  await db
    .updateTable('users')
    .set((eb) => ({ password_hash: passwordHash, email_verified_at: eb.fn.coalesce('email_verified_at', eb.val(now)), updated_at: now }))
    .where('id', '=', userId)
    .execute();
}
