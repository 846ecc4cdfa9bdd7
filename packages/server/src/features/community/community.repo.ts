import { PostgresAdapter, sql, type Kysely, type QueryCreator } from 'kysely';
import { prefixed, preparedStatement, type Prefixed } from '../../db/prepared.js';
import type { AuditEventsTable, DB, Db } from '../../db/schema.js';
import { insertAuditEvent } from '../audit/audit.repo.js';

/** Read on every forum sign-in: compiled once, prepared once per PostgreSQL connection (decision 0029). */
const termsAgreement = preparedStatement('foyer_terms_agreed', ['userId', 'termsVersion'], (db: Db, p: { userId: string; termsVersion: string }) =>
  db.selectFrom('community_terms').select('agreed_at').where('user_id', '=', p.userId).where('terms_version', '=', p.termsVersion),
);

/** Whether the account accepted this version of the community terms. */
export async function hasAgreedToTerms(db: Db, userId: string, termsVersion: string): Promise<boolean> {
  const { rows } = await termsAgreement(db, { userId, termsVersion });
  return rows.length > 0;
}

/** Records an acceptance; a second one of the same version keeps the first time. */
export async function insertTermsAgreement(db: Db, row: { user_id: string; terms_version: string; agreed_at: number }): Promise<void> {
  await db
    .insertInto('community_terms')
    .values(row)
    .onConflict((oc) => oc.columns(['user_id', 'terms_version']).doNothing())
    .execute();
}

interface NonceRow {
  id: string;
  user_id: string;
  answered_at: number;
  expires_at: number;
}

/** The nonce's claim: of two requests answering the same nonce only one inserts the row (the primary key decides). */
const claim = (db: QueryCreator<DB>, row: NonceRow) =>
  db
    .insertInto('discourse_nonces')
    .values(row)
    .onConflict((oc) => oc.column('id').doNothing())
    .returning('id');

type ClaimParameters = Prefixed<'nonce_', NonceRow> & AuditEventsTable;

/** SQLite: the claim alone, compiled once; the audit row follows it in the same transaction. */
const claimSqlite = preparedStatement('foyer_nonce_claim_sqlite', ['id', 'user_id', 'answered_at', 'expires_at'], (db: Db, row: NonceRow) =>
  claim(db, row),
);

/**
 * PostgreSQL: the claim as a data-modifying CTE and the audit row inserted from what it inserted,
 * so a replayed nonce writes neither. One statement, atomic on its own: one round trip where
 * BEGIN, two inserts and COMMIT took four. The parameters of the audit row stand in a SELECT list,
 * where PostgreSQL cannot infer their types from a column, hence the casts.
 */
const claimAuditedPg = preparedStatement(
  'foyer_nonce_claim_audited',
  ['nonce_id', 'nonce_user_id', 'nonce_answered_at', 'nonce_expires_at', 'id', 'at', 'type', 'user_id', 'email_key', 'ip', 'user_agent', 'detail'],
  (db: Db, p: ClaimParameters) =>
    db
      .with('claimed', (cte) => claim(cte, { id: p.nonce_id, user_id: p.nonce_user_id, answered_at: p.nonce_answered_at, expires_at: p.nonce_expires_at }))
      .insertInto('audit_events')
      .columns(['id', 'at', 'type', 'user_id', 'email_key', 'ip', 'user_agent', 'detail'])
      .expression((eb) =>
        eb
          .selectFrom('claimed')
          .select([
            sql<string>`cast(${p.id} as text)`.as('id'),
            sql<number>`cast(${p.at} as bigint)`.as('at'),
            sql<string>`cast(${p.type} as text)`.as('type'),
            sql<string | null>`cast(${p.user_id} as text)`.as('user_id'),
            sql<string | null>`cast(${p.email_key} as text)`.as('email_key'),
            sql<string | null>`cast(${p.ip} as text)`.as('ip'),
            sql<string | null>`cast(${p.user_agent} as text)`.as('user_agent'),
            sql<string | null>`cast(${p.detail} as text)`.as('detail'),
          ]),
      )
      .returning('id'),
);

/**
 * Claims a nonce and writes the audit row of its answer, together or not at all. False when it
 * was answered before: nothing is written then. On SQLite, whose CTEs cannot write and whose
 * statements cost no round trip, the two inserts run in one transaction.
 */
export async function claimNonceAudited(db: Kysely<DB>, nonce: NonceRow, audit: AuditEventsTable): Promise<boolean> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    const { rows } = await claimAuditedPg(db, { ...prefixed('nonce_', nonce), ...audit });
    return rows.length > 0;
  }
  return db.transaction().execute(async (trx) => {
    if ((await claimSqlite(trx, nonce)).rows.length === 0) return false;
    await insertAuditEvent(trx, audit);
    return true;
  });
}

/** Housekeeping: nonces past the time Discourse could still present them. */
export async function deleteExpiredNonces(db: Db, now: number): Promise<void> {
  await db.deleteFrom('discourse_nonces').where('expires_at', '<=', now).execute();
}
