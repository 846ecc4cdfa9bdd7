import { PostgresAdapter } from 'kysely';
import { prefixed, preparedStatement, type Prefixed } from '../../db/prepared.js';
import type { AuditEventsTable, Db } from '../../db/schema.js';
import { insertAuditEvent } from '../audit/audit.repo.js';
import { clearFailures } from '../lockout/lockout.repo.js';
import { deleteSession, insertSession, type NewSession } from '../sessions/sessions.repo.js';

/** What a password sign-in writes once the password matched (decision 0029). */
export interface SignInSuccess {
  emailKey: string;
  audit: AuditEventsTable;
  /** The session this browser held before, ended by the new one; none when it held none. */
  endedSessionId: string | undefined;
  session: NewSession;
}

type SuccessParameters = { email_key: string; ended_session_id: string | null } & Prefixed<'audit_', AuditEventsTable> & Prefixed<'session_', NewSession>;

/**
 * PostgreSQL: the four writes as one statement, three of them data-modifying CTEs. A single
 * statement is atomic without BEGIN and COMMIT, so a sign-in's success is one round trip where a
 * transaction took five (six with an old session to end). The CTEs touch different rows (the email's count, a new audit row, the
 * browser's old session, the new session), so that they all see the statement's one snapshot
 * changes nothing. Without an old session its id is null, which no row matches.
 */
const successPg = preparedStatement(
  'foyer_signin_success',
  [
    'email_key',
    'ended_session_id',
    'audit_id',
    'audit_at',
    'audit_type',
    'audit_user_id',
    'audit_email_key',
    'audit_ip',
    'audit_user_agent',
    'audit_detail',
    'session_id',
    'session_user_id',
    'session_device_id',
    'session_created_at',
    'session_last_seen_at',
    'session_expires_at',
    'session_kind',
  ],
  (db: Db, p: SuccessParameters) =>
    db
      .with('cleared', (cte) => cte.deleteFrom('login_failures').where('email_key', '=', p.email_key).returning('email_key'))
      .with('audited', (cte) =>
        cte
          .insertInto('audit_events')
          .values({
            id: p.audit_id,
            at: p.audit_at,
            type: p.audit_type,
            user_id: p.audit_user_id,
            email_key: p.audit_email_key,
            ip: p.audit_ip,
            user_agent: p.audit_user_agent,
            detail: p.audit_detail,
          })
          .returning('id'),
      )
      .with('ended', (cte) =>
        cte
          .deleteFrom('sessions')
          .where('id', '=', p.ended_session_id as string)
          .returning('id'),
      )
      .insertInto('sessions')
      .values({
        id: p.session_id,
        user_id: p.session_user_id,
        device_id: p.session_device_id,
        created_at: p.session_created_at,
        last_seen_at: p.session_last_seen_at,
        expires_at: p.session_expires_at,
        kind: p.session_kind,
      }),
);

/**
 * Writes a password sign-in's success together or not at all: the email's failure count cleared,
 * the audit row, the browser's old session ended, the new one started. On PostgreSQL one statement;
 * on SQLite, whose CTEs cannot write and whose statements cost no round trip, the four statements
 * in one transaction (or in the caller's, when `db` is one).
 */
export async function writeSignInSuccess(db: Db, success: SignInSuccess): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await successPg(db, {
      email_key: success.emailKey,
      ended_session_id: success.endedSessionId ?? null,
      ...prefixed('audit_', success.audit),
      ...prefixed('session_', success.session),
    });
    return;
  }
  const write = async (trx: Db) => {
    await clearFailures(trx, success.emailKey);
    await insertAuditEvent(trx, success.audit);
    if (success.endedSessionId !== undefined) await deleteSession(trx, success.endedSessionId);
    await insertSession(trx, success.session);
  };
  if (db.isTransaction) await write(db);
  else await db.transaction().execute(write);
}
