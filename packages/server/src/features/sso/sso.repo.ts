import { PostgresAdapter, type Selectable } from 'kysely';
import { prefixed, preparedStatement, type Prefixed } from '../../db/prepared.js';
import type { AuditEventsTable, Db, SsoConnectionsTable, SsoRequestsTable } from '../../db/schema.js';
import { auditParameterNames, auditRowAmong, insertAuditEvent } from '../audit/audit.repo.js';
import { touchIdentity } from '../google/google.repo.js';
import { storeToken, type TokenEndReason, type TokenRow } from '../tokens/tokens.js';

export type SsoConnectionRow = Selectable<SsoConnectionsTable>;
export type SsoRequestRow = Selectable<SsoRequestsTable>;

export async function insertConnection(db: Db, row: SsoConnectionRow): Promise<void> {
  await db.insertInto('sso_connections').values(row).execute();
}

// Decision 0029: the statements every SAML response and OIDC callback runs are prepared once.
const connectionById = preparedStatement('foyer_sso_connection', ['id'], (db: Db, { id }: { id: string }) =>
  db.selectFrom('sso_connections').selectAll().where('id', '=', id),
);

/**
 * What a connection's id can be (`sso_` and base64url, sso.connections.ts): an id from a provider's
 * request address that is anything else names no connection and is not looked up, so a NUL or a
 * stray byte in the path never reaches the database (PostgreSQL refuses NUL in text).
 */
const CONNECTION_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** The connection with this id; undefined for an unknown id and one no connection can have. */
export async function findConnectionById(db: Db, id: string): Promise<SsoConnectionRow | undefined> {
  if (!CONNECTION_ID.test(id)) return undefined;
  return (await connectionById(db, { id })).rows[0];
}

export async function findConnectionOfOrg(db: Db, orgId: string): Promise<SsoConnectionRow | undefined> {
  return db.selectFrom('sso_connections').selectAll().where('org_id', '=', orgId).executeTakeFirst();
}

export async function listConnections(db: Db): Promise<Array<SsoConnectionRow & { org_name: string }>> {
  return db
    .selectFrom('sso_connections')
    .innerJoin('organizations', 'organizations.id', 'sso_connections.org_id')
    .selectAll('sso_connections')
    .select('organizations.name as org_name')
    .orderBy('organizations.name_key')
    .execute();
}

export async function deleteConnectionOfOrg(db: Db, orgId: string): Promise<SsoConnectionRow | undefined> {
  const row = await findConnectionOfOrg(db, orgId);
  if (row === undefined) return undefined;
  // Waiting requests and the replay cache go with it (foreign keys cascade on PostgreSQL; SQLite
  // enforces them only when asked, so they are deleted here as well).
  await db.deleteFrom('sso_requests').where('connection_id', '=', row.id).execute();
  await db.deleteFrom('sso_assertions_seen').where('connection_id', '=', row.id).execute();
  await db.deleteFrom('sso_connections').where('id', '=', row.id).execute();
  return row;
}

export async function insertRequest(db: Db, row: SsoRequestRow): Promise<void> {
  await db.insertInto('sso_requests').values(row).execute();
}

const requestSpend = preparedStatement(
  'foyer_sso_request_spend',
  ['id', 'connectionId', 'now'],
  (db: Db, input: { id: string; connectionId: string; now: number }) =>
    db
      .updateTable('sso_requests')
      .set({ used_at: input.now })
      .where('id', '=', input.id)
      .where('connection_id', '=', input.connectionId)
      .where('used_at', 'is', null)
      .where('expires_at', '>', input.now)
      .returningAll(),
);

/**
 * Spends a waiting sign-in request of this connection in one conditional UPDATE: a response that
 * names a request (SAML `InResponseTo`, the OIDC `state`) is accepted once, on whichever instance
 * it reaches, and never for a request of another connection. Unknown, spent or expired: undefined.
 */
export async function spendRequest(db: Db, input: { id: string; connectionId: string; now: number }): Promise<SsoRequestRow | undefined> {
  return (await requestSpend(db, input)).rows[0];
}

export async function deleteExpiredRequests(db: Db, now: number): Promise<void> {
  await db.deleteFrom('sso_requests').where('expires_at', '<=', now).execute();
  await db.deleteFrom('sso_assertions_seen').where('expires_at', '<=', now).execute();
}

const assertionSeen = preparedStatement(
  'foyer_sso_assertion_seen',
  ['connectionId', 'assertionId', 'expiresAt'],
  (db: Db, input: { connectionId: string; assertionId: string; expiresAt: number }) =>
    db
      .insertInto('sso_assertions_seen')
      .values({ connection_id: input.connectionId, assertion_id: input.assertionId, expires_at: input.expiresAt })
      .onConflict((conflict) => conflict.columns(['connection_id', 'assertion_id']).doNothing())
      .returning('assertion_id'),
);

/**
 * Records an accepted assertion's ID; false when it was seen before (a replay). The primary key
 * decides, so two instances receiving the same response at once accept it once.
 */
export async function rememberAssertion(db: Db, input: { connectionId: string; assertionId: string; expiresAt: number }): Promise<boolean> {
  return (await assertionSeen(db, input)).rows.length === 1;
}

/** What a returning member's SSO sign-in writes (decision 0029): the identity's use, two audit rows, the transfer token. */
export interface SsoSignIn {
  identity: { issuer: string; subject: string; email: string; now: number };
  signInAudit: AuditEventsTable;
  /** A transfer token's row (tokens.ts `newToken`): the member's earlier unused ones end with it. */
  token: TokenRow;
  issuedAudit: AuditEventsTable;
}

type SsoSignInParameters = SsoSignIn['identity'] &
  Prefixed<'signin_', AuditEventsTable> &
  Prefixed<'token_', Pick<TokenRow, 'id' | 'user_id' | 'purpose' | 'expires_at' | 'binding_hash'>> &
  Prefixed<'issued_', AuditEventsTable>;

/**
 * PostgreSQL: the sign-in's audit row, the member's unused transfer tokens ended, the new one
 * stored and its audit row as data-modifying CTEs, then the identity's use: one statement, atomic
 * without BEGIN and COMMIT. The CTEs see one snapshot, so the new token is not among those ended.
 */
const ssoSignInPg = preparedStatement(
  'foyer_sso_signin',
  [
    'issuer',
    'subject',
    'email',
    'now',
    ...auditParameterNames('signin_'),
    'token_id',
    'token_user_id',
    'token_purpose',
    'token_expires_at',
    'token_binding_hash',
    ...auditParameterNames('issued_'),
  ],
  (db: Db, p: SsoSignInParameters) =>
    db
      .with('signed_in', (cte) => cte.insertInto('audit_events').values(auditRowAmong('signin_', p)).returning('id'))
      .with('superseded', (cte) =>
        cte
          .updateTable('email_tokens')
          .set({ used_at: p.now, ended_reason: 'superseded' satisfies TokenEndReason })
          .where('user_id', '=', p.token_user_id)
          .where('purpose', '=', p.token_purpose)
          .where('used_at', 'is', null)
          .returning('id'),
      )
      .with('issued', (cte) =>
        cte
          .insertInto('email_tokens')
          .values({
            id: p.token_id,
            user_id: p.token_user_id,
            purpose: p.token_purpose,
            created_at: p.now,
            expires_at: p.token_expires_at,
            used_at: null,
            signup_id: null,
            new_email: null,
            binding_hash: p.token_binding_hash,
            ended_reason: null,
          })
          .returning('id'),
      )
      .with('audited', (cte) => cte.insertInto('audit_events').values(auditRowAmong('issued_', p)).returning('id'))
      .updateTable('external_identities')
      .set({ email: p.email, last_used_at: p.now })
      .where('issuer', '=', p.issuer)
      .where('subject', '=', p.subject),
);

/**
 * Writes a returning member's SSO sign-in together or not at all: on PostgreSQL one statement
 * (after the account's read, two round trips where the transaction took nine: BEGIN, the domain
 * and the account read, five writes, COMMIT); on SQLite one transaction.
 */
export async function writeSsoSignIn(db: Db, signIn: SsoSignIn): Promise<void> {
  if (signIn.token.signup_id !== null || signIn.token.new_email !== null || signIn.token.created_at !== signIn.identity.now) {
    throw new Error('an SSO sign-in issues a plain transfer token at the moment of the sign-in');
  }
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    const { id, user_id, purpose, expires_at, binding_hash } = signIn.token;
    await ssoSignInPg(db, {
      ...signIn.identity,
      ...prefixed('signin_', signIn.signInAudit),
      ...prefixed('token_', { id, user_id, purpose, expires_at, binding_hash }),
      ...prefixed('issued_', signIn.issuedAudit),
    });
    return;
  }
  const write = async (trx: Db) => {
    await touchIdentity(trx, signIn.identity);
    await insertAuditEvent(trx, signIn.signInAudit);
    await storeToken(trx, signIn.token);
    await insertAuditEvent(trx, signIn.issuedAudit);
  };
  if (db.isTransaction) await write(db);
  else await db.transaction().execute(write);
}
