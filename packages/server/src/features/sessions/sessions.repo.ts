import type { Insertable } from 'kysely';
import { preparedStatement } from '../../db/prepared.js';
import type { Db, SessionsTable } from '../../db/schema.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Decision 0021: a native client's device token lives a year and ends after 90 days unused; a
 * client that opens once a season keeps working, one that is gone stops being a way in.
 */
export const DEVICE_TOKEN_LIFETIME = { absoluteMs: 365 * DAY_MS, idleMs: 90 * DAY_MS } as const;

type NewSession = Required<Insertable<SessionsTable>>;

/** Every sign-in ends here: compiled once, prepared once per PostgreSQL connection (decision 0029). */
const insertSessionRow = preparedStatement(
  'foyer_session_insert',
  ['id', 'user_id', 'device_id', 'created_at', 'last_seen_at', 'expires_at', 'kind'],
  (db: Db, row: NewSession) => db.insertInto('sessions').values(row),
);

export async function insertSession(db: Db, row: NewSession): Promise<void> {
  await insertSessionRow(db, row);
}

/**
 * The session check's only query: a primary-key lookup joined to its user. It runs on every
 * signed-in request, so it stays one indexed read, compiled once and, on PostgreSQL, prepared once
 * per connection (decision 0029).
 */
const sessionWithUser = preparedStatement('foyer_session_with_user', ['id'], (db: Db, { id }: { id: string }) =>
  db
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
    .where('sessions.id', '=', id),
);

type SessionWithUser = Awaited<ReturnType<typeof sessionWithUser>>['rows'][number];

export async function findSessionWithUser(db: Db, id: string): Promise<SessionWithUser | undefined> {
  const { rows } = await sessionWithUser(db, { id });
  return rows[0];
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
