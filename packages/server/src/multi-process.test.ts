import { randomBytes } from 'node:crypto';
import { CALLS, normalizeEmail } from '@foyer/contract';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { TEST_DB, dbUnavailable, testConfig, uniqueEmail } from '../test/helpers.js';
import { randomAddress } from '../test/password.js';
import { TEST_REDIS_URL, redisAvailable } from '../test/redis.js';
import { ServerProcess } from '../test/server-process.js';
import { openDatabase, type Database } from './db/database.js';
import { CLI_META } from './features/audit/audit.service.js';
import { FORGOT_PER_EMAIL } from './features/password/password.limits.js';
import { getFailureCount } from './features/lockout/lockout.repo.js';
import { createRedirectPolicy } from './features/redirects/redirect-policy.js';
import { createUser } from './features/users/users.service.js';
import { systemClock } from './lib/clock.js';
import { sha256Hex } from './lib/crypto.js';
import { createPasswordHasher } from './lib/passwords.js';

const postgres = TEST_DB === 'postgres' && !dbUnavailable;
// Only where it can run: the Redis probe would otherwise print its skip line in SQLite runs too.
const redis = postgres && (await redisAvailable());

/** Cheap hashing: these processes run with FOYER_ENV=test, where it is allowed. */
const ARGON2 = { ARGON2_MEMORY_KIB: '1024', ARGON2_TIME: '1' };

async function adminQuery(url: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/**
 * ARCHITECTURE.md, decision 0003: the lockout lives in the database and the rate-limit counters
 * in Redis, so they hold across instances. Two real server processes (node + tsx on src/main.ts)
 * on one fresh PostgreSQL database and one Redis, started together (so their migrations also
 * race, under Kysely's advisory lock). Only the server-postgres project runs this: SQLite is the
 * one-machine embedded store, which two processes do not share across machines.
 */
describe.skipIf(!postgres)('two server processes on one PostgreSQL (server-postgres project only)', () => {
  const databaseName = `foyer_mp_${randomBytes(6).toString('hex')}`;
  let adminUrl = '';
  let databaseUrl = '';
  let servers: ServerProcess[] = [];
  let database: Database | undefined;

  beforeAll(async () => {
    adminUrl = inject('postgresUrl');
    const url = new URL(adminUrl);
    url.pathname = `/${databaseName}`;
    databaseUrl = url.toString();
    await adminQuery(adminUrl, `create database ${databaseName}`);
    const env = { DATABASE_URL: databaseUrl, TRUST_PROXY: '1', ...ARGON2, ...(redis ? { REDIS_URL: TEST_REDIS_URL } : {}) };
    servers = await Promise.all([ServerProcess.start(env), ServerProcess.start(env)]);
    await Promise.all(servers.map((server) => server.ready()));
    database = openDatabase({ kind: 'postgres', connectionString: databaseUrl }, { max: 2 });
  }, 90_000);

  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    await database?.destroy();
    if (adminUrl !== '') await adminQuery(adminUrl, `drop database if exists ${databaseName} with (force)`);
  }, 30_000);

  const pair = (): [ServerProcess, ServerProcess] => {
    const [a, b] = servers;
    if (a === undefined || b === undefined) throw new Error('servers not started');
    return [a, b];
  };

  it('locks an email after failures alternating between the two, and both refuse it', async () => {
    if (database === undefined) throw new Error('database not open');
    const config = testConfig(ARGON2);
    const deps = {
      db: database.db,
      config,
      clock: systemClock,
      passwords: await createPasswordHasher(config.argon2),
      redirects: createRedirectPolicy(config),
    };
    const email = uniqueEmail('two-processes');
    const password = 'the right password';
    await createUser(deps, { email, hashPassword: sha256Hex(password), firstName: 'Ada', lastName: 'Lovelace', verified: true }, CLI_META);
    const [a, b] = pair();
    const address = randomAddress();
    const signIn = (server: ServerProcess, secret: string) =>
      server.post(CALLS.signin.path, { email, hashPassword: sha256Hex(secret), deviceId: randomBytes(9).toString('base64url') }, address);

    const threshold = config.lockoutThreshold;
    for (let attempt = 1; attempt < threshold; attempt++) {
      const answer = await signIn(attempt % 2 === 1 ? a : b, `wrong ${attempt}`);
      expect(answer, `attempt ${attempt}`).toMatchObject({ status: 401, body: { errorMessage: 'invalidCredentials' } });
    }
    // The threshold-th failure, on whichever process gets it, locks the email for both.
    expect(await signIn(threshold % 2 === 1 ? a : b, 'wrong again')).toMatchObject({ status: 423, body: { errorMessage: 'accountLocked' } });
    expect(await getFailureCount(database.db, normalizeEmail(email))).toMatchObject({ failures: threshold });
    for (const server of [a, b]) {
      expect(await signIn(server, password)).toMatchObject({ status: 423, body: { errorMessage: 'accountLocked' } });
    }
  });

  it.skipIf(!redis)('shares a rate limit through Redis: requests alternating between the two use up one allowance', async () => {
    const [a, b] = pair();
    const email = uniqueEmail('two-processes-limit');
    const address = randomAddress();
    const forgot = (server: ServerProcess) => server.post(CALLS.forgotPassword.path, { email }, address);
    for (let i = 0; i < FORGOT_PER_EMAIL.limit; i++) {
      expect(await forgot(i % 2 === 0 ? a : b), `request ${i + 1}`).toMatchObject({ status: 200, body: {} });
    }
    for (const server of [a, b]) {
      const refused = await forgot(server);
      expect(refused).toMatchObject({ status: 429, body: { errorMessage: 'rateLimitExeeded' } });
      expect(Number(refused.retryAfter)).toBeGreaterThan(0);
    }
  });
});
