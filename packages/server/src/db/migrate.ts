import { Migrator, sql, type Migration, type MigrationProvider } from 'kysely';
import type { Database } from './database.js';
import * as initial from './migrations/001-initial.js';
import * as mailOutbox from './migrations/002-mail-outbox.js';
import * as signupAndOrganizations from './migrations/003-signup-and-organizations.js';
import * as passwordHistory from './migrations/004-password-history.js';
import * as pendingSignups from './migrations/005-pending-signups.js';
import * as outboxEncryption from './migrations/006-outbox-encryption.js';
import * as googleIdentities from './migrations/007-google-identities.js';
import * as community from './migrations/008-community.js';
import * as ssoConnections from './migrations/009-sso-connections.js';
import * as tokenEndReasons from './migrations/010-token-end-reasons.js';
import * as emailChange from './migrations/011-email-change.js';
import * as attributionTouch from './migrations/012-attribution-touch.js';
import * as ssoBinding from './migrations/013-sso-binding.js';

/**
 * Every migration, in order, compiled into the service: no directory scanning, so the built
 * dist and the tests run exactly the same list. Names sort in the order they must run.
 */
export const MIGRATIONS: ReadonlyArray<readonly [name: string, migration: Migration]> = [
  ['001-initial', initial],
  ['002-mail-outbox', mailOutbox],
  ['003-signup-and-organizations', signupAndOrganizations],
  ['004-password-history', passwordHistory],
  ['005-pending-signups', pendingSignups],
  ['006-outbox-encryption', outboxEncryption],
  ['007-google-identities', googleIdentities],
  ['008-community', community],
  ['009-sso-connections', ssoConnections],
  ['010-token-end-reasons', tokenEndReasons],
  ['011-email-change', emailChange],
  ['012-attribution-touch', attributionTouch],
  ['013-sso-binding', ssoBinding],
];

const provider: MigrationProvider = {
  getMigrations: () => Promise.resolve(Object.fromEntries(MIGRATIONS)),
};

/**
 * Brings the schema to the latest version. Kysely takes a lock first (an advisory lock on
 * PostgreSQL), so instances starting together do not run a migration twice.
 */
export async function migrateToLatest(database: Pick<Database, 'db' | 'dialect'>): Promise<void> {
  const { db, dialect } = database;
  // Without a schema, Kysely takes its bookkeeping tables in ANY schema of the database for its
  // own (another app's, another test's): pin them to the schema our tables go to.
  const migrationTableSchema =
    dialect === 'postgres' ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0]?.schema : undefined;
  const migrator = new Migrator({ db, provider, ...(migrationTableSchema === undefined ? {} : { migrationTableSchema }) });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((result) => result.status === 'Error');
  if (error !== undefined) {
    throw new Error(failed ? `Migration ${failed.migrationName} failed` : 'Migrations failed', { cause: error });
  }
}
