import type { Db } from '../../db/schema.js';

/** Whether the account accepted this version of the community terms. */
export async function hasAgreedToTerms(db: Db, userId: string, termsVersion: string): Promise<boolean> {
  const row = await db
    .selectFrom('community_terms')
    .select('agreed_at')
    .where('user_id', '=', userId)
    .where('terms_version', '=', termsVersion)
    .executeTakeFirst();
  return row !== undefined;
}

/** Records an acceptance; a second one of the same version keeps the first time. */
export async function insertTermsAgreement(db: Db, row: { user_id: string; terms_version: string; agreed_at: number }): Promise<void> {
  await db
    .insertInto('community_terms')
    .values(row)
    .onConflict((oc) => oc.columns(['user_id', 'terms_version']).doNothing())
    .execute();
}

/**
 * Claims a nonce in one INSERT: of two requests answering the same nonce only one inserts the row
 * (the primary key decides), so a nonce is answered once even under a race. False when it was
 * answered before.
 */
export async function claimNonce(db: Db, row: { id: string; user_id: string; answered_at: number; expires_at: number }): Promise<boolean> {
  const inserted = await db
    .insertInto('discourse_nonces')
    .values(row)
    .onConflict((oc) => oc.column('id').doNothing())
    .returning('id')
    .executeTakeFirst();
  return inserted !== undefined;
}

/** Housekeeping: nonces past the time Discourse could still present them. */
export async function deleteExpiredNonces(db: Db, now: number): Promise<void> {
  await db.deleteFrom('discourse_nonces').where('expires_at', '<=', now).execute();
}
