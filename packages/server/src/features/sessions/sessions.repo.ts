import type { CompiledQuery, Insertable } from 'kysely';
import type { Db, SessionsTable } from '../../db/schema.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Decision 0021: a native client's device token lives a year and ends after 90 days unused; a
 * client that opens once a season keeps working, one that is gone stops being a way in.
 */
export const DEVICE_TOKEN_LIFETIME = { absoluteMs: 365 * DAY_MS, idleMs: 90 * DAY_MS } as const;

export async function insertSession(db: Db, row: Insertable<SessionsTable>): Promise<void> {
  await db.insertInto('sessions').values(row).execute();
}

function sessionWithUserQuery(db: Db, id: string) {
  return db
    .selectFrom('sessions')
    .innerJoin('users', 'users.id', 'sessions.user_id')
    .select([
      'sessions.id',
      'sessions.user_id',
      'sessions.device_id',
      'sessions.last_seen_at',
      'sessions.expires_at',
      'sessions.kind',
      'users.email',
      'users.first_name',
      'users.last_name',
      'users.email_verified_at',
      'users.deactivated_at',
    ])
    .where('sessions.id', '=', id);
}

type SessionWithUser = Awaited<ReturnType<ReturnType<typeof sessionWithUserQuery>['executeTakeFirstOrThrow']>>;
const compiledSessionQueries = new WeakMap<Db, CompiledQuery<SessionWithUser>>();

/**
 * The session check's only query: a primary-key lookup joined to its user. It runs on every
 * signed-in request, so it stays one indexed read, built once per database handle (its only
 * parameter is the id) instead of on every request.
 */
export async function findSessionWithUser(db: Db, id: string): Promise<SessionWithUser | undefined> {
  let compiled = compiledSessionQueries.get(db);
  if (compiled === undefined) {
    compiled = sessionWithUserQuery(db, '').compile();
    compiledSessionQueries.set(db, compiled);
  }
  const result = await db.executeQuery<SessionWithUser>({ ...compiled, parameters: [id] });
  return result.rows[0];
}

export async function touchSession(db: Db, id: string, at: number): Promise<void> {
  await db.updateTable('sessions').set({ last_seen_at: at }).where('id', '=', id).execute();
}

/** Returns the account whose session ended, if there was one. */
export async function deleteSession(db: Db, id: string): Promise<string | undefined> {
  const row = await db.deleteFrom('sessions').where('id', '=', id).returning('user_id').executeTakeFirst();
  return row?.user_id;
}

/** Returns how many sessions ended. */
export async function deleteSessionsOfUser(db: Db, userId: string): Promise<number> {
  const result = await db.deleteFrom('sessions').where('user_id', '=', userId).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/**
 * Housekeeping: rows past their absolute or idle expiry can never be used again. `idleMs` is the
 * browser sessions' idle limit; device tokens have their own (DEVICE_TOKEN_LIFETIME).
 */
export async function deleteExpiredSessions(db: Db, now: number, idleMs: number): Promise<number> {
  const result = await db
    .deleteFrom('sessions')
    .where((eb) =>
      eb.or([
        eb('expires_at', '<=', now),
        eb.and([eb('kind', '=', 'browser'), eb('last_seen_at', '<=', now - idleMs)]),
        eb.and([eb('kind', '=', 'device'), eb('last_seen_at', '<=', now - DEVICE_TOKEN_LIFETIME.idleMs)]),
      ]),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
