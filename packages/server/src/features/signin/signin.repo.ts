import { sql, type Kysely, type Transaction } from 'kysely';
import type { DB } from '../../db/schema.js';

type Db = Kysely<DB> | Transaction<DB>;

export async function findLockedUntil(db: Db, emailKey: string): Promise<number | null> {
  const row = await db.selectFrom('login_failures').select('locked_until').where('email_key', '=', emailKey).executeTakeFirst();
  return row?.locked_until ?? null;
}

export interface FailureCount {
  failures: number;
  lockedUntil: number | null;
}

/**
 * Counts one failed sign-in for an email in a single UPSERT, so parallel attempts (from one or
 * many server processes) cannot lose an increment. A lock that has run out starts the count
 * again at 1; reaching the threshold sets the lock. The SET expressions all see the row as it
 * was before the statement, on SQLite and PostgreSQL alike.
 */
export async function recordFailure(
  db: Db,
  input: { emailKey: string; now: number; threshold: number; lockUntil: number },
): Promise<FailureCount> {
  const { emailKey, now, threshold, lockUntil } = input;
  const lockExpired = sql<boolean>`login_failures.locked_until is not null and login_failures.locked_until <= ${now}`;
  const lockValue = sql<number>`cast(${lockUntil} as bigint)`;
  const row = await db
    .insertInto('login_failures')
    .values({ email_key: emailKey, failures: 1, last_failure_at: now, locked_until: threshold <= 1 ? lockUntil : null })
    .onConflict((oc) =>
      oc.column('email_key').doUpdateSet({
        failures: sql<number>`case when ${lockExpired} then 1 else login_failures.failures + 1 end`,
        last_failure_at: now,
        locked_until: sql<number | null>`case
          when ${lockExpired} then ${threshold <= 1 ? lockValue : sql`null`}
          when login_failures.locked_until is not null then login_failures.locked_until
          when login_failures.failures + 1 >= ${threshold} then ${lockValue}
          else null end`,
      }),
    )
    .returning(['failures', 'locked_until'])
    .executeTakeFirstOrThrow();
  return { failures: row.failures, lockedUntil: row.locked_until };
}

/** Forgets the failures of an email (after a success, or an administrator's unlock). */
export async function clearFailures(db: Db, emailKey: string): Promise<number> {
  const result = await db.deleteFrom('login_failures').where('email_key', '=', emailKey).executeTakeFirst();
  return Number(result.numDeletedRows);
}

export async function getFailureCount(db: Db, emailKey: string): Promise<FailureCount | undefined> {
  const row = await db.selectFrom('login_failures').select(['failures', 'locked_until']).where('email_key', '=', emailKey).executeTakeFirst();
  return row === undefined ? undefined : { failures: row.failures, lockedUntil: row.locked_until };
}
