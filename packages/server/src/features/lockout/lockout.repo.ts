import { sql } from 'kysely';
import { preparedStatement } from '../../db/prepared.js';
import type { Db } from '../../db/schema.js';
import { ssoRequiredClaim } from '../organizations/organizations.repo.js';

export interface FailureCount {
  failures: number;
  lockedUntil: number | null;
}

/** What a password sign-in needs of the account an email belongs to. */
export interface SigninAccount {
  id: string;
  passwordHash: string | null;
  emailVerifiedAt: number | null;
  deactivatedAt: number | null;
}

const account = (db: Db, emailKey: string) => db.selectFrom('users').where('users.email_key', '=', emailKey);

/**
 * Reserves one sign-in attempt for an email before any password is checked (decision 0003): a
 * single UPSERT counts it, so of any number of parallel guesses, from one or many server
 * processes, each gets its own number and at most the threshold are ever checked. A lock that
 * has run out starts the count again at 1. The SET expressions all see the row as it was before
 * the statement, on SQLite and PostgreSQL alike. The caller settles the reservation: a success
 * clears the count, a failure keeps it (and locks at the threshold), a right password on an
 * account that cannot sign in gives it back.
 *
 * The same statement reads the email's account (decision 0029): the upsert returns, beside the
 * count, the account's columns through subqueries on the unique email key, so a sign-in reaches
 * the password check after one round trip to the database. Compiled once, and prepared once per
 * PostgreSQL connection, since it runs on every sign-in.
 *
 * With `ssoDomain`, the attempt is counted only when that domain does not require SSO (decision
 * 0022): the row to insert comes from a SELECT that finds none when it does, so the statement
 * writes nothing and returns no row. A password sign-in asks the domain's rule and counts its
 * attempt in one round trip.
 */
function reservation(db: Db, { emailKey, now }: { emailKey: string; now: number }, ssoDomain?: string) {
  const lockExpired = sql<boolean>`login_failures.locked_until is not null and login_failures.locked_until <= ${now}`;
  const insert = db.insertInto('login_failures');
  const counted =
    ssoDomain === undefined
      ? insert.values({ email_key: emailKey, failures: 1, last_failure_at: now, locked_until: null })
      : insert
          .columns(['email_key', 'failures', 'last_failure_at', 'locked_until'])
          .expression(
            db
              .selectNoFrom([
                sql<string>`cast(${emailKey} as text)`.as('email_key'),
                sql<number>`1`.as('failures'),
                sql<number>`cast(${now} as bigint)`.as('last_failure_at'),
                sql<number | null>`cast(null as bigint)`.as('locked_until'),
              ])
              .where(({ not, exists }) => not(exists(ssoRequiredClaim(db, ssoDomain)))),
          );
  return counted
    .onConflict((oc) =>
      oc.column('email_key').doUpdateSet({
        failures: sql<number>`case when ${lockExpired} then 1 else login_failures.failures + 1 end`,
        last_failure_at: now,
        locked_until: sql<number | null>`case when ${lockExpired} then null else login_failures.locked_until end`,
      }),
    )
    .returning([
      'failures',
      'locked_until',
      account(db, emailKey).select('users.id').as('user_id'),
      account(db, emailKey).select('users.password_hash').as('user_password_hash'),
      account(db, emailKey).select('users.email_verified_at').as('user_email_verified_at'),
      account(db, emailKey).select('users.deactivated_at').as('user_deactivated_at'),
    ]);
}

const reserveWithAccount = preparedStatement('foyer_signin_reserve', ['emailKey', 'now'], (db: Db, input: { emailKey: string; now: number }) =>
  reservation(db, input),
);

const reserveUnlessSso = preparedStatement(
  'foyer_password_signin_reserve',
  ['emailKey', 'now', 'domain'],
  (db: Db, input: { emailKey: string; now: number; domain: string }) => reservation(db, input, input.domain),
);

type ReservedRow = Awaited<ReturnType<typeof reserveWithAccount>>['rows'][number];

function reserved(row: ReservedRow): FailureCount & { account: SigninAccount | undefined } {
  return {
    failures: row.failures,
    lockedUntil: row.locked_until,
    account:
      row.user_id === null
        ? undefined
        : {
            id: row.user_id,
            passwordHash: row.user_password_hash,
            emailVerifiedAt: row.user_email_verified_at,
            deactivatedAt: row.user_deactivated_at,
          },
  };
}

export async function reserveAttemptWithAccount(
  db: Db,
  input: { emailKey: string; now: number },
): Promise<FailureCount & { account: SigninAccount | undefined }> {
  const [row] = (await reserveWithAccount(db, input)).rows;
  if (row === undefined) throw new Error('the sign-in reservation returned no row');
  return reserved(row);
}

/** The same for a password sign-in; undefined, with nothing counted, when `domain` requires SSO. */
export async function reserveAttemptUnlessSso(
  db: Db,
  input: { emailKey: string; now: number; domain: string },
): Promise<(FailureCount & { account: SigninAccount | undefined }) | undefined> {
  const [row] = (await reserveUnlessSso(db, input)).rows;
  return row === undefined ? undefined : reserved(row);
}

/**
 * Settles a failed attempt: the reservation stays counted, and the attempt whose number reached
 * the threshold sets the lock (once: a lock already set is kept as it is). An attempt refused over
 * the threshold sets it too when none is set (lockout.service.ts).
 */
export async function lockAfterFailure(db: Db, input: { emailKey: string; lockUntil: number }): Promise<void> {
  await db
    .updateTable('login_failures')
    .set({ locked_until: input.lockUntil })
    .where('email_key', '=', input.emailKey)
    .where('locked_until', 'is', null)
    .execute();
}

/** Gives a reservation back: the password was right, so it was no failure. */
export async function releaseAttempt(db: Db, emailKey: string): Promise<void> {
  await db
    .updateTable('login_failures')
    .set({ failures: sql<number>`case when login_failures.failures > 0 then login_failures.failures - 1 else 0 end` })
    .where('email_key', '=', emailKey)
    .execute();
}

/** Forgets the failures of an email (after a success, or an administrator's unlock). */
const deleteFailures = preparedStatement('foyer_lockout_clear', ['emailKey'], (db: Db, { emailKey }: { emailKey: string }) =>
  db.deleteFrom('login_failures').where('email_key', '=', emailKey),
);

export async function clearFailures(db: Db, emailKey: string): Promise<number> {
  const result = await deleteFailures(db, { emailKey });
  return Number(result.numAffectedRows ?? 0);
}

export async function getFailureCount(db: Db, emailKey: string): Promise<FailureCount | undefined> {
  const row = await db.selectFrom('login_failures').select(['failures', 'locked_until']).where('email_key', '=', emailKey).executeTakeFirst();
  return row === undefined ? undefined : { failures: row.failures, lockedUntil: row.locked_until };
}
