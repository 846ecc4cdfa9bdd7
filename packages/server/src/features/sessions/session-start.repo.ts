import { PostgresAdapter, type Compilable } from 'kysely';
import { prefixed, preparedStatement, type Prefixed } from '../../db/prepared.js';
import type { AuditEventsTable, Db } from '../../db/schema.js';
import { auditParameterNames, auditRowAmong, insertAuditEvent } from '../audit/audit.repo.js';
import { deleteSession, insertSession, type NewSession } from './sessions.repo.js';

/** A sign-in's closing writes (decision 0029): its audit row, the browser's old session ended, the new one. */
export interface SessionStart {
  audit: AuditEventsTable;
  /** The session this browser held before, ended by the new one; none when it held none. */
  endedSessionId: string | undefined;
  session: NewSession;
}

export type SessionStartParameters = { ended_session_id: string | null } & Prefixed<'audit_', AuditEventsTable> & Prefixed<'session_', NewSession>;

const SESSION_START_PARAMETERS = [
  'ended_session_id',
  ...auditParameterNames('audit_'),
  'session_id',
  'session_user_id',
  'session_device_id',
  'session_created_at',
  'session_last_seen_at',
  'session_expires_at',
  'session_kind',
] as const;

/**
 * PostgreSQL: the closing writes as three data-modifying CTEs, for a statement whose own write
 * (the sign-in's: a failure count cleared, an identity touched) follows. A single statement is
 * atomic without BEGIN and COMMIT, so a sign-in's writes are one round trip where a transaction
 * took five or more. The CTEs and the statement touch different rows, so that they all see the
 * statement's one snapshot changes nothing. Without an old session its id is null, which no row
 * matches.
 */
function withSessionStart(db: Db, p: SessionStartParameters) {
  return db
    .with('audited', (cte) => cte.insertInto('audit_events').values(auditRowAmong('audit_', p)).returning('id'))
    .with('ended', (cte) =>
      cte
        .deleteFrom('sessions')
        .where('id', '=', p.ended_session_id as string)
        .returning('id'),
    )
    .with('started', (cte) =>
      cte
        .insertInto('sessions')
        .values({
          id: p.session_id,
          user_id: p.session_user_id,
          device_id: p.session_device_id,
          created_at: p.session_created_at,
          last_seen_at: p.session_last_seen_at,
          expires_at: p.session_expires_at,
          kind: p.session_kind,
        })
        .returning('id'),
    );
}

type SessionStartQueries = ReturnType<typeof withSessionStart>;

/**
 * A sign-in's one PostgreSQL statement (`preparedStatement`): the closing writes' CTEs, then its
 * own write, built by `own` on them with its own parameters (`ownParameters`).
 */
export function sessionStartStatement<P extends object>(
  name: string,
  ownParameters: ReadonlyArray<keyof P & string>,
  own: (db: SessionStartQueries, parameters: P) => Compilable<unknown>,
): (db: Db, parameters: P & SessionStartParameters) => Promise<unknown> {
  return preparedStatement(name, [...ownParameters, ...SESSION_START_PARAMETERS], (db: Db, p: P & SessionStartParameters) =>
    own(withSessionStart(db, p), p),
  );
}

/**
 * Writes a sign-in's own write and its closing writes together or not at all. On PostgreSQL one
 * statement, `statement`, made by `sessionStartStatement`; on SQLite, whose CTEs cannot write and whose
 * statements cost no round trip, `own` and the closing writes in one transaction (or in the
 * caller's, when `db` is one).
 */
export async function writeWithSessionStart(
  db: Db,
  start: SessionStart,
  statement: (db: Db, parameters: SessionStartParameters) => Promise<unknown>,
  own: (trx: Db) => Promise<unknown>,
): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await statement(db, {
      ended_session_id: start.endedSessionId ?? null,
      ...prefixed('audit_', start.audit),
      ...prefixed('session_', start.session),
    });
    return;
  }
  const write = async (trx: Db) => {
    await own(trx);
    await insertAuditEvent(trx, start.audit);
    if (start.endedSessionId !== undefined) await deleteSession(trx, start.endedSessionId);
    await insertSession(trx, start.session);
  };
  if (db.isTransaction) await write(db);
  else await db.transaction().execute(write);
}
