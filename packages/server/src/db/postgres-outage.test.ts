import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { CALLS, HEALTH_PATH } from '@foyer/contract';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DB, dbUnavailable, newDeviceId, uniqueEmail } from '../../test/helpers.js';
import { PrivateCluster, privateClusterAvailable } from '../../test/private-postgres.js';
import { ServerProcess } from '../../test/server-process.js';
import { sha256Hex } from '../lib/crypto.js';
import { openDatabase } from './database.js';
import { isDatabaseUnavailable } from './errors.js';
import { signUpBody } from '../../test/account-entry.js';

const run = promisify(execFile);
const postgres = TEST_DB === 'postgres' && !dbUnavailable && (await privateClusterAvailable());

/** Short deadlines so the outage shows within the test's time; the defaults are 5 s each. */
const CONNECT_TIMEOUT_MS = 1000;
const STATEMENT_TIMEOUT_MS = 1500;

interface Answer {
  status: number;
  body: unknown;
  retryAfter: string | null;
  ms: number;
}

/**
 * Decision 0011, against a real server process (node + tsx on src/main.ts) on a PostgreSQL cluster
 * of the test's own, which it terminates, stops, restarts and freezes. Only the server-postgres
 * project runs it.
 */
describe.skipIf(!postgres)('PostgreSQL outages (server-postgres project only)', () => {
  let cluster: PrivateCluster | undefined;
  let server: ServerProcess | undefined;

  beforeAll(async () => {
    cluster = await PrivateCluster.create();
    server = await ServerProcess.start({
      DATABASE_URL: cluster.url,
      DATABASE_CONNECT_TIMEOUT_MS: String(CONNECT_TIMEOUT_MS),
      DATABASE_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS),
      RATE_LIMITS: 'off',
      ARGON2_MEMORY_KIB: '1024',
      ARGON2_TIME: '1',
    });
    await server.ready();
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    await cluster?.destroy();
  }, 30_000);

  const parts = (): { cluster: PrivateCluster; server: ServerProcess } => {
    if (cluster === undefined || server === undefined) throw new Error('not started');
    return { cluster, server };
  };

  /** A sign-in of an unknown email: it reads and writes the database (the failure counter). */
  async function signIn(): Promise<Answer> {
    const started = Date.now();
    const body = { email: uniqueEmail('outage'), hashPassword: sha256Hex('not the password'), deviceId: newDeviceId() };
    const answer = await parts().server.post(CALLS.signin.path, body, '192.0.2.10');
    return { ...answer, ms: Date.now() - started };
  }

  /** A sign-up: its writes are one transaction, which a lost connection must not hold open twice. */
  async function signUp(): Promise<Answer> {
    const started = Date.now();
    const answer = await parts().server.post(CALLS.signup.path, signUpBody(), '192.0.2.11');
    return { ...answer, ms: Date.now() - started };
  }

  async function admin(statement: string): Promise<number> {
    const client = new pg.Client({ connectionString: parts().cluster.url });
    await client.connect();
    try {
      return (await client.query(statement)).rowCount ?? 0;
    } finally {
      await client.end();
    }
  }

  function expectServed(answer: Answer): void {
    expect(answer.status, JSON.stringify(answer)).toBeGreaterThanOrEqual(200);
    expect(answer.status, JSON.stringify(answer)).toBeLessThan(500);
  }

  function expectUnavailable(answer: Answer): void {
    expect(answer.status, JSON.stringify(answer)).toBe(503);
    expect(answer.body).toEqual({ errorMessage: 'unavailable' });
    expect(Number(answer.retryAfter)).toBeGreaterThan(0);
  }

  /** Sends sign-ins until one is served; returns how long the service took to come back. */
  async function recoveryMs(limitMs: number): Promise<number> {
    const started = Date.now();
    for (;;) {
      const answer = await signIn();
      if (answer.status < 500) return Date.now() - started;
      expectUnavailable(answer);
      if (Date.now() - started > limitMs) throw new Error(`not back within ${limitMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  it('survives pg_terminate_backend on its pooled connections and serves the next requests', async () => {
    // Several at once, so the pool holds several connections.
    for (const answer of await Promise.all(Array.from({ length: 6 }, signIn))) expectServed(answer);
    const terminated = await admin(
      "select pg_terminate_backend(pid) from pg_stat_activity where backend_type = 'client backend' and pid <> pg_backend_pid()",
    );
    expect(terminated).toBeGreaterThan(0);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(parts().server.exited, parts().server.log).toBe(false);
    for (const answer of await Promise.all(Array.from({ length: 6 }, signIn))) expectServed(answer);
    // One short line per lost connection: not the pg Client pg-pool attaches to the error.
    await expectShortWarnings('database connection lost; it will be replaced');
  });

  /** Warnings an outage repeats: each one line with its reason, no stack and no client object. */
  async function expectShortWarnings(message: string): Promise<void> {
    const lines = () =>
      parts()
        .server.log.split('\n')
        .filter((line) => line.includes(`"msg":"${message}"`));
    // The log reaches the test through a pipe, possibly after the answers it is about.
    const deadline = Date.now() + 3000;
    while (lines().length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(lines().length, parts().server.log).toBeGreaterThan(0);
    for (const line of lines()) {
      expect(line).toContain('"reason":');
      expect(line).not.toContain('"stack"');
      expect(line.length).toBeLessThan(600);
    }
  }

  it('answers 503 with Retry-After while the database is stopped, never 500, and is back within seconds of its return', async () => {
    const { cluster, server } = parts();
    expectServed(await signIn());
    await cluster.stop('fast');
    const during = await Promise.all(Array.from({ length: 5 }, signIn));
    for (const answer of during) expectUnavailable(answer);
    await expectShortWarnings('database unavailable');
    const health = await fetch(`${server.url}${HEALTH_PATH}`);
    expect(health.status).toBe(503);
    expect(await health.json()).toMatchObject({ status: 'degraded', database: 'down' });
    expect(server.exited, server.log).toBe(false);

    await cluster.start();
    expect(await recoveryMs(5000)).toBeLessThan(5000);
    expect((await fetch(`${server.url}${HEALTH_PATH}`)).status).toBe(200);
  });

  /** Stops every process of the cluster (SIGSTOP): connections stay open, nothing answers. Returns the thaw. */
  async function freeze(): Promise<() => Promise<void>> {
    const postmaster = (await readFile(parts().cluster.pidFile, 'utf8')).split('\n')[0]?.trim() ?? '';
    const children = (await run('ps', ['-o', 'pid=', '--ppid', postmaster])).stdout
      .split('\n')
      .map((pid) => pid.trim())
      .filter(Boolean);
    const pids = [postmaster, ...children];
    await run('kill', ['-STOP', ...pids]);
    return async () => {
      await run('kill', ['-CONT', ...pids]);
    };
  }

  it('gives up a transaction whose connection stopped answering after one deadline: no ROLLBACK waits out a second', async () => {
    const database = openDatabase(
      { kind: 'postgres', connectionString: parts().cluster.url },
      { timeouts: { connectMs: CONNECT_TIMEOUT_MS, statementMs: STATEMENT_TIMEOUT_MS } },
    );
    let thaw: (() => Promise<void>) | undefined;
    try {
      let frozenAt = 0;
      const failed = await database.db
        .transaction()
        .execute(async (trx) => {
          await sql`select 1`.execute(trx);
          thaw = await freeze();
          frozenAt = Date.now();
          await sql`select 1`.execute(trx);
        })
        .then(
          () => undefined,
          (error: unknown) => error,
        );
      expect(isDatabaseUnavailable(failed), String(failed)).toBe(true);
      // The statement's deadline and its margin (1 s), once.
      expect(Date.now() - frozenAt).toBeLessThan(STATEMENT_TIMEOUT_MS + 1000 + 1000);
    } finally {
      await thaw?.();
      await database.destroy();
    }
    expect(await recoveryMs(5000)).toBeLessThan(5000);
  });

  it('answers 503 within seconds while the database is frozen (SIGSTOP), and recovers when it thaws', async () => {
    const { server } = parts();
    expectServed(await signIn());
    const thaw = await freeze();
    try {
      const during = await Promise.all([...Array.from({ length: 4 }, signIn), ...Array.from({ length: 3 }, signUp)]);
      for (const answer of during) {
        expectUnavailable(answer);
        // At most a connect wait and one statement deadline (plus its margin), not the freeze's
        // length, and not a second deadline for the ROLLBACK of a transaction whose connection
        // no longer answers.
        expect(answer.ms).toBeLessThan(CONNECT_TIMEOUT_MS + STATEMENT_TIMEOUT_MS + 2000);
      }
      const started = Date.now();
      expect((await fetch(`${server.url}${HEALTH_PATH}`)).status).toBe(503);
      expect(Date.now() - started).toBeLessThan(3000);
    } finally {
      await thaw();
    }
    expect(await recoveryMs(5000)).toBeLessThan(5000);
    expect(server.exited, server.log).toBe(false);
  });
});
