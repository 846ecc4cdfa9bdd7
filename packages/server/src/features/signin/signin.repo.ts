import type { Db } from '../../db/schema.js';
import { clearFailures } from '../lockout/lockout.repo.js';
import { sessionStartStatement, writeWithSessionStart, type SessionStart } from '../sessions/session-start.repo.js';

/** What a password sign-in writes once the password matched (decision 0029). */
export interface SignInSuccess extends SessionStart {
  emailKey: string;
  checked: NonNullable<SessionStart['checked']>;
}

/**
 * PostgreSQL: the count cleared after the closing writes' CTEs (session-start.repo.ts), one
 * statement: one round trip where a transaction took five (six with an old session to end).
 */
const successPg = sessionStartStatement(
  'foyer_signin_success',
  ['email_key'],
  (db, p: { email_key: string }) => db.deleteFrom('login_failures').where('email_key', '=', p.email_key),
  { checked: true },
);

/**
 * Writes a password sign-in's success together or not at all: the email's failure count cleared,
 * the audit row, the browser's old session ended, the new one started. On PostgreSQL one statement;
 * on SQLite the four statements in one transaction (or in the caller's, when `db` is one). Only
 * while the account still has the credentials the sign-in checked (`CredentialsChanged` otherwise).
 */
export async function writeSignInSuccess(db: Db, success: SignInSuccess): Promise<void> {
  await writeWithSessionStart(
    db,
    success,
    (db, parameters) => successPg(db, { email_key: success.emailKey, ...parameters }),
    (trx) => clearFailures(trx, success.emailKey),
  );
}
