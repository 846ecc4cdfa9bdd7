import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';

/** Emails locked at `now` (decision 0003): a rising number is a credential-stuffing wave. */
export async function countLockedEmails(db: Kysely<DB>, now: number): Promise<number> {
  const row = await db
    .selectFrom('login_failures')
    .select((eb) => eb.fn.countAll().as('locked'))
    .where('locked_until', '>', now)
    .executeTakeFirst();
  return Number(row?.locked ?? 0);
}
