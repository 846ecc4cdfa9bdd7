import type { Kysely } from 'kysely';

/**
 * Decision 0022: a company sign-in is bound to the browser that started it. The SHA-256 of the
 * browser's binding cookie is kept with the waiting request, then with the transfer token the
 * provider's answer led to, which only that browser can exchange; `desktop` for a desktop
 * client's hand-off, which only the app may exchange. Null: not bound (an IdP-initiated sign-in,
 * a Google transfer token).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('sso_requests').addColumn('binding_hash', 'text').execute();
  await db.schema.alterTable('email_tokens').addColumn('binding_hash', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('email_tokens').dropColumn('binding_hash').execute();
  await db.schema.alterTable('sso_requests').dropColumn('binding_hash').execute();
}
