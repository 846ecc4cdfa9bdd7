import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import pg from 'pg';
import { describe, expect, inject, it } from 'vitest';
import { TEST_DB, dbUnavailable } from '../../test/helpers.js';
import { DEFAULT_POOL_SIZE, openDatabase } from './database.js';

/** Connections PostgreSQL holds for one application name. */
async function connectionsOf(url: string, applicationName: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const result = await client.query<{ count: string }>('select count(*) from pg_stat_activity where application_name = $1', [applicationName]);
    return Number(result.rows[0]?.count ?? 0);
  } finally {
    await client.end();
  }
}

/** Opens a pool, keeps more statements in flight than it may hold, and counts its connections. */
async function connectionsUnderLoad(poolSize: number | undefined, parallel: number): Promise<number> {
  const applicationName = `foyer_pool_${randomBytes(4).toString('hex')}`;
  const url = new URL(inject('postgresUrl'));
  url.searchParams.set('application_name', applicationName);
  const database = openDatabase({ kind: 'postgres', connectionString: url.toString(), ...(poolSize === undefined ? {} : { poolSize }) });
  try {
    await Promise.all(Array.from({ length: parallel }, () => sql`select pg_sleep(0.2)`.execute(database.db)));
    return await connectionsOf(inject('postgresUrl'), applicationName);
  } finally {
    await database.destroy();
  }
}

describe.skipIf(TEST_DB !== 'postgres' || dbUnavailable)('DATABASE_POOL_SIZE', () => {
  it('caps the connections one instance opens', async () => {
    expect(await connectionsUnderLoad(3, 8)).toBe(3);
  });

  it('opens at most the default without it', async () => {
    expect(await connectionsUnderLoad(undefined, DEFAULT_POOL_SIZE + 4)).toBe(DEFAULT_POOL_SIZE);
  });
});
