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
import * as mailBounces from './migrations/014-mail-bounces.js';

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
  ['014-mail-bounces', mailBounces],
];

const provider: MigrationProvider = {
  getMigrations: () => Promise.resolve(Object.fromEntries(MIGRATIONS)),
};

/** The names of the migrations applied to this database; none when it has no bookkeeping table yet. */
async function appliedMigrations(db: Database['db'], schema: string | undefined): Promise<string[]> {
  const table = schema === undefined ? sql.table('kysely_migration') : sql.table(`${schema}.kysely_migration`);
  try {
    return (await sql<{ name: string }>`select name from ${table}`.execute(db)).rows.map((row) => row.name);
  } catch {
    return [];
  }
}

/**
 * Brings the schema to the latest version. Kysely takes a lock first (an advisory lock on
 * PostgreSQL), so instances starting together do not run a migration twice.
 *
 * A database a newer version migrated (decision 0018: a rolling deploy, or a rollback) holds every
 * migration of this one and some it does not know. Those only add to what this version uses, so
 * it starts without migrating, and answers their names for the log; Kysely's migrator would
 * refuse the database as corrupted, and an older instance restarted mid-rollout could never start.
 */
export async function migrateToLatest(database: Pick<Database, 'db' | 'dialect'>): Promise<{ newerMigrations: string[] }> {
  const { db, dialect } = database;
  // Without a schema, Kysely takes its bookkeeping tables in ANY schema of the database for its
  // own (another app's, another test's): pin them to the schema our tables go to.
  const migrationTableSchema =
    dialect === 'postgres' ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0]?.schema : undefined;
  const applied = new Set(await appliedMigrations(db, migrationTableSchema));
  const known = new Set(MIGRATIONS.map(([name]) => name));
  const newerMigrations = [...applied].filter((name) => !known.has(name)).sort();
  if (newerMigrations.length > 0 && [...known].every((name) => applied.has(name))) return { newerMigrations };
  const migrator = new Migrator({ db, provider, ...(migrationTableSchema === undefined ? {} : { migrationTableSchema }) });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((result) => result.status === 'Error');
  if (error !== undefined) {
    throw new Error(failed ? `Migration ${failed.migrationName} failed` : 'Migrations failed', { cause: error });
  }
  return { newerMigrations: [] };
}
