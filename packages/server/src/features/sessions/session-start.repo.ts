import { PostgresAdapter, sql, type Compilable } from 'kysely';
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
  /**
   * The credentials a password sign-in checked: its session starts only while the account still
   * has them (the same password hash and email, not deactivated). A reset, an email change or a
   * deactivation that commits while the password is being verified ends every session first; a
   * session written after it would outlive it. Otherwise the writes fail with `CredentialsChanged`
   * and nothing is written.
   */
  checked?: CheckedCredentials;
}

export interface CheckedCredentials {
  passwordHash: string;
  emailKey: string;
}

/** The account's credentials changed after the sign-in checked them: no session was started. */
export class CredentialsChanged extends Error {
  constructor() {
    super('the account changed while its password was being checked');
    this.name = 'CredentialsChanged';
  }
}

type CheckedParameters = { checked_password_hash: string; checked_email_key: string };

export type SessionStartParameters = { ended_session_id: string | null } & Prefixed<'audit_', AuditEventsTable> &
  Prefixed<'session_', NewSession> &
  Partial<CheckedParameters>;

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
 *
 * With checked credentials, the new session's account id is read from the account row while it
 * still has them, under a share lock: a reset's or an email change's update of the row waits for
 * this statement, or this one waits for it and then finds the row changed. A changed row gives no
 * id, the NOT NULL column refuses it, and the whole statement, audit row included, writes nothing.
 */
function withSessionStart(db: Db, p: SessionStartParameters, checked: boolean) {
  const userId = checked
    ? sql<string>`(select users.id from users where users.id = ${p.session_user_id} and users.password_hash = ${p.checked_password_hash} and users.email_key = ${p.checked_email_key} and users.deactivated_at is null for share)`
    : p.session_user_id;
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
          user_id: userId,
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
  options: { checked?: boolean } = {},
): (db: Db, parameters: P & SessionStartParameters) => Promise<unknown> {
  const checked = options.checked === true;
  const parameters = checked ? [...SESSION_START_PARAMETERS, 'checked_password_hash' as const, 'checked_email_key' as const] : SESSION_START_PARAMETERS;
  return preparedStatement(name, [...ownParameters, ...parameters], (db: Db, p: P & SessionStartParameters) => own(withSessionStart(db, p, checked), p));
}

/** PostgreSQL's refusal of a checked session start whose account changed (see `withSessionStart`). */
function isUncheckedStart(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, table, column } = error as { code?: unknown; table?: unknown; column?: unknown };
  return code === '23502' && table === 'sessions' && column === 'user_id';
}

/** SQLite: the account's id while it still has the checked credentials (decision 0029: compiled once). */
const accountStillChecked = preparedStatement(
  'foyer_signin_still_checked',
  ['id', 'passwordHash', 'emailKey'],
  (db: Db, p: { id: string; passwordHash: string; emailKey: string }) =>
    db
      .selectFrom('users')
      .select('id')
      .where('id', '=', p.id)
      .where('password_hash', '=', p.passwordHash)
      .where('email_key', '=', p.emailKey)
      .where('deactivated_at', 'is', null),
);

/** SQLite: whether the account still has the checked credentials, read inside the writes' transaction. */
async function stillChecked(trx: Db, userId: string, checked: CheckedCredentials): Promise<boolean> {
  const { rows } = await accountStillChecked(trx, { id: userId, passwordHash: checked.passwordHash, emailKey: checked.emailKey });
  return rows.length > 0;
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
  const { checked } = start;
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    try {
      await statement(db, {
        ended_session_id: start.endedSessionId ?? null,
        ...prefixed('audit_', start.audit),
        ...prefixed('session_', start.session),
        ...(checked === undefined ? {} : { checked_password_hash: checked.passwordHash, checked_email_key: checked.emailKey }),
      });
    } catch (error) {
      if (checked !== undefined && isUncheckedStart(error)) throw new CredentialsChanged();
      throw error;
    }
    return;
  }
  const write = async (trx: Db) => {
    if (checked !== undefined && !(await stillChecked(trx, start.session.user_id, checked))) throw new CredentialsChanged();
    await own(trx);
    await insertAuditEvent(trx, start.audit);
    if (start.endedSessionId !== undefined) await deleteSession(trx, start.endedSessionId);
    await insertSession(trx, start.session);
  };
  if (db.isTransaction) await write(db);
  else await db.transaction().execute(write);
}
