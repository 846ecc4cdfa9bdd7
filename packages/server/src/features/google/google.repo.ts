import type { Selectable } from 'kysely';
import { preparedStatement } from '../../db/prepared.js';
import type { Db, ExternalIdentitiesTable, SocialAuthStatesTable } from '../../db/schema.js';
import { sessionStartStatement, writeWithSessionStart, type SessionStart } from '../sessions/session-start.repo.js';
import type { UserRow } from '../users/users.repo.js';

export type SocialAuthStateRow = Selectable<SocialAuthStatesTable>;
export type ExternalIdentityRow = Selectable<ExternalIdentitiesTable>;

export async function insertSocialAuthState(db: Db, row: SocialAuthStateRow): Promise<void> {
  await db.insertInto('social_auth_states').values(row).execute();
}

// Decision 0029: the statements of every Google callback are prepared once.
const stateSpend = preparedStatement('foyer_social_auth_state_spend', ['id', 'now'], (db: Db, { id, now }: { id: string; now: number }) =>
  db
    .updateTable('social_auth_states')
    .set({ used_at: now })
    .where('id', '=', id)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .returning(['code_verifier', 'nonce']),
);

/**
 * Spends a waiting authorization request in one conditional UPDATE and returns what it kept: of
 * two exchanges racing with one state only one gets it (ASVS V15.4.2: check and use are one step).
 * Unknown, spent or expired: undefined.
 */
export async function spendSocialAuthState(db: Db, id: string, now: number): Promise<Pick<SocialAuthStateRow, 'code_verifier' | 'nonce'> | undefined> {
  return (await stateSpend(db, { id, now })).rows[0];
}

/** Rows past their expiry serve nothing: removed whenever a new request is stored. */
export async function deleteExpiredSocialAuthStates(db: Db, now: number): Promise<void> {
  await db.deleteFrom('social_auth_states').where('expires_at', '<=', now).execute();
}

const identityAccount = preparedStatement(
  'foyer_identity_account',
  ['issuer', 'subject'],
  (db: Db, { issuer, subject }: { issuer: string; subject: string }) =>
    db
      .selectFrom('external_identities')
      .innerJoin('users', 'users.id', 'external_identities.user_id')
      .selectAll('users')
      .where('external_identities.issuer', '=', issuer)
      .where('external_identities.subject', '=', subject),
);

/** The account a known identity signs in to, in one read (an identity goes with its account). */
export async function findIdentityAccount(db: Db, issuer: string, subject: string): Promise<UserRow | undefined> {
  return (await identityAccount(db, { issuer, subject })).rows[0];
}

export async function insertIdentity(db: Db, row: ExternalIdentityRow): Promise<void> {
  await db.insertInto('external_identities').values(row).execute();
}

type IdentityUse = { issuer: string; subject: string; email: string; now: number };

const identityTouch = preparedStatement('foyer_identity_touch', ['issuer', 'subject', 'email', 'now'], (db: Db, input: IdentityUse) =>
  db
    .updateTable('external_identities')
    .set({ email: input.email, last_used_at: input.now })
    .where('issuer', '=', input.issuer)
    .where('subject', '=', input.subject),
);

export async function touchIdentity(db: Db, input: IdentityUse): Promise<void> {
  await identityTouch(db, input);
}

/** What a returning account's Google sign-in to a browser session writes (decision 0029). */
export interface GoogleSignIn extends SessionStart {
  identity: IdentityUse;
}

/** PostgreSQL: the identity touched after the closing writes' CTEs (session-start.repo.ts), one statement. */
const googleSignInPg = sessionStartStatement('foyer_google_signin', ['issuer', 'subject', 'email', 'now'], (db, p: IdentityUse) =>
  db.updateTable('external_identities').set({ email: p.email, last_used_at: p.now }).where('issuer', '=', p.issuer).where('subject', '=', p.subject),
);

/**
 * Writes a returning account's Google sign-in together or not at all: the identity's email and
 * last use, the audit row, the browser's old session ended, the new one started. On PostgreSQL one
 * statement, where BEGIN, four statements and COMMIT took six round trips; on SQLite one
 * transaction.
 */
export async function writeGoogleSignIn(db: Db, signIn: GoogleSignIn): Promise<void> {
  await writeWithSessionStart(
    db,
    signIn,
    (db, parameters) => googleSignInPg(db, { ...signIn.identity, ...parameters }),
    (trx) => touchIdentity(trx, signIn.identity),
  );
}

/**
 * Decision 0019, account pre-hijacking: the Google owner of an email takes over an account that
 * was never verified. Whatever a stranger may have put on it goes (password, names, phone); the
 * provider's names come in and the email counts as verified. Only while it is still unverified
 * (checked in the UPDATE itself), so a verification racing with this keeps its own result.
 */
export async function takeOverUnverified(
  db: Db,
  input: { userId: string; firstName: string | null; lastName: string | null; now: number },
): Promise<boolean> {
  const result = await db
    .updateTable('users')
    .set({
      password_hash: null,
      first_name: input.firstName,
      last_name: input.lastName,
      phone_number: null,
      email_verified_at: input.now,
      updated_at: input.now,
    })
    .where('id', '=', input.userId)
    .where('email_verified_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}
