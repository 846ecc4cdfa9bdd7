import type { Kysely } from 'kysely';

/**
 * Spec §7's Google code exchange also carries `lastTouchUrl` and `marketingTestData`: kept with
 * the rest of a new account's attribution.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('user_attribution').addColumn('last_touch_url', 'text').execute();
  await db.schema.alterTable('user_attribution').addColumn('marketing_test_data', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('user_attribution').dropColumn('marketing_test_data').execute();
  await db.schema.alterTable('user_attribution').dropColumn('last_touch_url').execute();
}
