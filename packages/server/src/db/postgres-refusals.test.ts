import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { describe, expect, inject, it } from 'vitest';
import { postSignUp, signUpBody } from '../../test/account-entry.js';
import { TEST_DB, createTestApp, dbUnavailable } from '../../test/helpers.js';
import { openDatabase } from './database.js';
import { migrateToLatest } from './migrate.js';

async function admin(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: inject('postgresUrl') });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/**
 * Decision 0011: a PostgreSQL server that refuses new connections for a reason of its own (the
 * database closed to connections for maintenance) is an outage to the calls as it is to the
 * probes: 503 `unavailable` with Retry-After, not 500. A database of this file's own, since the
 * test closes it.
 */
describe.skipIf(TEST_DB !== 'postgres' || dbUnavailable)('a PostgreSQL database closed to connections', () => {
  it('answers calls 503 with Retry-After while it is closed, and serves them again once it opens', async () => {
    const name = `foyer_refusals_${randomBytes(6).toString('hex')}`;
    await admin(`create database ${name}`);
    const url = new URL(inject('postgresUrl'));
    url.pathname = `/${name}`;
    const database = openDatabase({ kind: 'postgres', connectionString: url.toString() });
    try {
      await migrateToLatest(database);
      const t = await createTestApp({ database: { ...database, destroy: async () => undefined } });
      try {
        await admin(`alter database ${name} allow_connections false`);
        await admin(`select pg_terminate_backend(pid) from pg_stat_activity where datname = '${name}'`);
        const refused = await postSignUp(t, signUpBody());
        expect(refused.statusCode, refused.body).toBe(503);
        expect(refused.json()).toEqual({ errorMessage: 'unavailable' });
        expect(refused.headers['retry-after']).toBe('5');

        await admin(`alter database ${name} allow_connections true`);
        const served = await postSignUp(t, signUpBody());
        expect(served.statusCode, served.body).toBe(200);
      } finally {
        await t.close();
      }
    } finally {
      await database.destroy();
      await admin(`drop database if exists ${name} with (force)`);
    }
  });
});
