import type { Kysely, Transaction } from 'kysely';
import { preparedStatement, unprefixed, type Prefixed } from '../../db/prepared.js';
import type { AuditEventsTable, DB, Db } from '../../db/schema.js';

const AUDIT_COLUMNS = ['id', 'at', 'type', 'user_id', 'email_key', 'ip', 'user_agent', 'detail'] as const satisfies ReadonlyArray<keyof AuditEventsTable>;

/** The parameter names of an audit row that a statement takes among its own under `prefix` (db/prepared.ts `prefixed`). */
export function auditParameterNames<P extends string>(prefix: P): Array<`${P}${(typeof AUDIT_COLUMNS)[number]}`> {
  return AUDIT_COLUMNS.map((column) => `${prefix}${column}` as const);
}

/** That audit row, read back from the parameters inside the statement's builder. */
export function auditRowAmong<P extends string>(prefix: P, parameters: Prefixed<P, AuditEventsTable>): AuditEventsTable {
  return unprefixed<P, AuditEventsTable>(prefix, parameters, AUDIT_COLUMNS);
}

/** Every sign-in writes one: compiled once, prepared once per PostgreSQL connection (decision 0029). */
const insertAuditRow = preparedStatement(
  'foyer_audit_insert',
  ['id', 'at', 'type', 'user_id', 'email_key', 'ip', 'user_agent', 'detail'],
  (db: Db, row: AuditEventsTable) => db.insertInto('audit_events').values(row),
);

export async function insertAuditEvent(db: Kysely<DB> | Transaction<DB>, row: AuditEventsTable): Promise<void> {
  await insertAuditRow(db, row);
}

export async function listAuditEvents(db: Kysely<DB>, filter: { emailKey?: string; type?: string } = {}): Promise<AuditEventsTable[]> {
  let query = db.selectFrom('audit_events').selectAll().orderBy('at').orderBy('id');
  if (filter.emailKey !== undefined) query = query.where('email_key', '=', filter.emailKey);
  if (filter.type !== undefined) query = query.where('type', '=', filter.type);
  return query.execute();
}

/** The newest events of one normalised email first (the admin CLI's `audit`). */
export async function listRecentAuditEvents(db: Kysely<DB>, filter: { emailKey: string; limit: number }): Promise<AuditEventsTable[]> {
  return db
    .selectFrom('audit_events')
    .selectAll()
    .where('email_key', '=', filter.emailKey)
    .orderBy('at', 'desc')
    .orderBy('id', 'desc')
    .limit(filter.limit)
    .execute();
}
