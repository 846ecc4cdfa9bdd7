import type { Selectable } from 'kysely';
import type { Db, SsoConnectionsTable, SsoRequestsTable } from '../../db/schema.js';

export type SsoConnectionRow = Selectable<SsoConnectionsTable>;
export type SsoRequestRow = Selectable<SsoRequestsTable>;

export async function insertConnection(db: Db, row: SsoConnectionRow): Promise<void> {
  await db.insertInto('sso_connections').values(row).execute();
}

export async function findConnectionById(db: Db, id: string): Promise<SsoConnectionRow | undefined> {
  return db.selectFrom('sso_connections').selectAll().where('id', '=', id).executeTakeFirst();
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

/**
 * Spends a waiting sign-in request of this connection in one conditional UPDATE: a response that
 * names a request (SAML `InResponseTo`, the OIDC `state`) is accepted once, on whichever instance
 * it reaches, and never for a request of another connection. Unknown, spent or expired: undefined.
 */
export async function spendRequest(db: Db, input: { id: string; connectionId: string; now: number }): Promise<SsoRequestRow | undefined> {
  return db
    .updateTable('sso_requests')
    .set({ used_at: input.now })
    .where('id', '=', input.id)
    .where('connection_id', '=', input.connectionId)
    .where('used_at', 'is', null)
    .where('expires_at', '>', input.now)
    .returningAll()
    .executeTakeFirst();
}

export async function deleteExpiredRequests(db: Db, now: number): Promise<void> {
  await db.deleteFrom('sso_requests').where('expires_at', '<=', now).execute();
  await db.deleteFrom('sso_assertions_seen').where('expires_at', '<=', now).execute();
}

/**
 * Records an accepted assertion's ID; false when it was seen before (a replay). The primary key
 * decides, so two instances receiving the same response at once accept it once.
 */
export async function rememberAssertion(db: Db, input: { connectionId: string; assertionId: string; expiresAt: number }): Promise<boolean> {
  const result = await db
    .insertInto('sso_assertions_seen')
    .values({ connection_id: input.connectionId, assertion_id: input.assertionId, expires_at: input.expiresAt })
    .onConflict((conflict) => conflict.columns(['connection_id', 'assertion_id']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) === 1;
}
