import { createServer, type Server } from 'node:net';
import pg from 'pg';
import { describe, expect, inject, it } from 'vitest';
import { TEST_DB, dbUnavailable } from '../../test/helpers.js';
import { BootError, bootFailureText } from './boot-failure.js';

async function listenError(port: number): Promise<unknown> {
  const server = createServer();
  return new Promise((resolve) => {
    server.once('error', resolve);
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(undefined)));
  });
}

async function connectError(connectionString: string): Promise<unknown> {
  const client = new pg.Client({ connectionString, connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
    return undefined;
  } catch (error) {
    return error;
  } finally {
    await client.end().catch(() => undefined);
  }
}

describe('what a failed start prints', () => {
  it('names a taken port in one line', async () => {
    const holder: Server = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const address = holder.address();
    if (address === null || typeof address === 'string') throw new Error('not listening on TCP');
    try {
      const text = bootFailureText(await listenError(address.port));
      expect(text).toBe(`127.0.0.1:${address.port} is already in use: stop what listens there, or set PORT (or HOST)`);
    } finally {
      holder.close();
    }
  });

  it('sends a database that does not answer back to DATABASE_URL', async () => {
    const text = bootFailureText(await connectError('postgres://postgres@127.0.0.1:1/foyer'));
    expect(text).toBe('nothing answered at 127.0.0.1:1 (ECONNREFUSED): check DATABASE_URL, and that the database is running');
  });

  it('sends a database that takes the connection but never answers back to DATABASE_URL', async () => {
    const silent: Server = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const address = silent.address();
    if (address === null || typeof address === 'string') throw new Error('not listening on TCP');
    try {
      // Through a pool, as the service connects.
      const pool = new pg.Pool({ connectionString: `postgres://postgres@127.0.0.1:${address.port}/foyer`, connectionTimeoutMillis: 300 });
      const error: unknown = await pool.query('select 1').then(
        () => undefined,
        (failure: unknown) => failure,
      );
      await pool.end();
      expect(bootFailureText(error)).toBe(
        'the database took the connection but did not answer (Connection terminated due to connection timeout): check DATABASE_URL, and that the database is running',
      );
    } finally {
      silent.close();
    }
  });

  it.skipIf(TEST_DB !== 'postgres' || dbUnavailable)('says what PostgreSQL refused', async () => {
    const url = new URL(inject('postgresUrl'));
    url.pathname = '/foyer_no_such_database';
    const text = bootFailureText(await connectError(url.toString()));
    expect(text).toMatch(/^PostgreSQL refused the connection, the database does not exist \(.*foyer_no_such_database.*\): check DATABASE_URL$/);
  });

  it("prints an operator's reason as it is, and leaves anything else to the whole error", () => {
    expect(bootFailureText(new BootError('set GOOGLE_CLIENT_ID'))).toBe('set GOOGLE_CLIENT_ID');
    expect(bootFailureText(new TypeError('something unforeseen'))).toBeUndefined();
    expect(bootFailureText('a string')).toBeUndefined();
  });
});
