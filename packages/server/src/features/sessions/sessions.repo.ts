import { PostgresAdapter, sql, type Insertable } from 'kysely';
import { CoalescedReads } from '../../db/coalesced-reads.js';
import { preparedStatement } from '../../db/prepared.js';
import type { Db, SessionsTable } from '../../db/schema.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Decision 0021: a native client's device token lives a year and ends after 90 days unused; a
 * client that opens once a season keeps working, one that is gone stops being a way in.
 */
export const DEVICE_TOKEN_LIFETIME = { absoluteMs: 365 * DAY_MS, idleMs: 90 * DAY_MS } as const;

export type NewSession = Required<Insertable<SessionsTable>>;

/** Every sign-in ends here: compiled once, prepared once per PostgreSQL connection (decision 0029). */
const insertSessionRow = preparedStatement(
  'foyer_session_insert',
  ['id', 'user_id', 'device_id', 'created_at', 'last_seen_at', 'expires_at', 'kind'],
  (db: Db, row: NewSession) => db.insertInto('sessions').values(row),
);

export async function insertSession(db: Db, row: NewSession): Promise<void> {
  await insertSessionRow(db, row);
}

const SESSION_WITH_USER_COLUMNS = [
  'sessions.id',
  'sessions.user_id',
  'sessions.device_id',
  'sessions.last_seen_at',
  'sessions.expires_at',
  'sessions.kind',
  'users.email',
  'users.email_key',
  'users.first_name',
  'users.last_name',
  'users.email_verified_at',
  'users.deactivated_at',
] as const;

/**
 * The session check's only query: primary-key lookups joined to their users, for the checks of
 * one turn of the event loop together (coalesced-reads.ts). It runs on every signed-in request, so
 * it is compiled once and, on PostgreSQL, prepared once per connection (decision 0029). PostgreSQL
 * takes the ids as one text[] parameter, SQLite as one JSON array: one statement text whatever
 * their number.
 */
const sessionsWithUsersPg = preparedStatement('foyer_sessions_with_users', ['ids'], (db: Db, { ids }: { ids: string[] }) =>
  db
    .selectFrom('sessions')
    .innerJoin('users', 'users.id', 'sessions.user_id')
    .select(SESSION_WITH_USER_COLUMNS)
    .where('sessions.id', '=', sql<string>`any(${ids})`),
);
const sessionsWithUsersSqlite = preparedStatement('foyer_sessions_with_users_sqlite', ['idsJson'], (db: Db, { idsJson }: { idsJson: string }) =>
  db
    .selectFrom('sessions')
    .innerJoin('users', 'users.id', 'sessions.user_id')
    .select(SESSION_WITH_USER_COLUMNS)
    .where('sessions.id', 'in', sql<string>`(select value from json_each(${idsJson}))`),
);

type SessionWithUser = Awaited<ReturnType<typeof sessionsWithUsersPg>>['rows'][number];

async function readSessionsWithUsers(db: Db, ids: string[]): Promise<Map<string, SessionWithUser>> {
  const { rows } =
    db.getExecutor().adapter instanceof PostgresAdapter
      ? await sessionsWithUsersPg(db, { ids })
      : await sessionsWithUsersSqlite(db, { idsJson: JSON.stringify(ids) });
  return new Map(rows.map((row) => [row.id, row]));
}

/** Session ids are SHA-256 hex: 128 of them make a statement of about 8 KB. */
const MAX_SESSIONS_PER_READ = 128;

const coalescedBy = new WeakMap<Db, CoalescedReads<SessionWithUser>>();

/**
 * The session with this id (the token's SHA-256) and its account. Checks that arrive together
 * share one statement: on PostgreSQL one round trip instead of one each, on SQLite one pass
 * through the driver. A transaction reads on its own connection, alone.
 */
export async function findSessionWithUser(db: Db, id: string): Promise<SessionWithUser | undefined> {
  if (db.isTransaction) return (await readSessionsWithUsers(db, [id])).get(id);
  let reads = coalescedBy.get(db);
  if (reads === undefined) {
    reads = new CoalescedReads((ids) => readSessionsWithUsers(db, ids), MAX_SESSIONS_PER_READ);
    coalescedBy.set(db, reads);
  }
  return reads.read(id);
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

/** Ends every session and device token of every account (an operator's last resort). Returns how many ended. */
export async function deleteAllSessions(db: Db): Promise<number> {
  const result = await db.deleteFrom('sessions').executeTakeFirst();
  return Number(result.numDeletedRows);
}

/**
 * Ends every session and device token of the accounts whose email is at this exact domain (a
 * normalised domain: letters, digits, hyphens and dots, so nothing in it is a LIKE wildcard).
 * Returns how many ended.
 */
export async function deleteSessionsOfDomain(db: Db, domain: string): Promise<number> {
  const result = await db
    .deleteFrom('sessions')
    .where('user_id', 'in', db.selectFrom('users').select('id').where('email_key', 'like', `%@${domain}`))
    .executeTakeFirst();
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
