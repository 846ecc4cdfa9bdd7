import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { API_BASE, CALLS, COOKIE_BASE_NAMES, DEVICE_ID_HEADER, XSRF_HEADER, cookieName } from '@foyer/contract';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, beforeEach, inject } from 'vitest';
import { buildApp } from '../src/app.js';
import { loadConfig, type Config } from '../src/config.js';
import { openDatabase, type Database } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import type { Deps } from '../src/deps.js';
import { CLI_META } from '../src/features/audit/audit.service.js';
import type { UserRow } from '../src/features/users/users.repo.js';
import { createUser } from '../src/features/users/users.service.js';
import type { Clock } from '../src/lib/clock.js';
import type { LogStream } from '../src/lib/logging.js';
import { randomToken, sha256Hex } from '../src/lib/crypto.js';

/** Which database this project runs on (set per vitest project in the root config). */
export const TEST_DB: 'sqlite' | 'postgres' = process.env.FOYER_TEST_DB === 'postgres' ? 'postgres' : 'sqlite';

/** True when the postgres project runs without a reachable PostgreSQL: its suites skip. */
export const dbUnavailable = TEST_DB === 'postgres' && !inject('postgresAvailable');

/** A clock the test moves by hand (lock expiry, session idle and absolute expiry). */
export class ManualClock implements Clock {
  constructor(private current: number = Date.UTC(2030, 0, 15, 9, 0, 0)) {}
  now(): number {
    return this.current;
  }
  advance(ms: number): void {
    this.current += ms;
  }
}

export const MINUTE = 60 * 1000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

/**
 * What PostgreSQL answers when a schema, table or column goes away under a query that lists them:
 * invalid_schema_name, undefined_table, undefined_column.
 */
const CATALOG_RACES = new Set(['3F000', '42P01', '42703']);

/**
 * Kysely's migrator lists the tables and columns of every schema in the database before it starts;
 * another test file dropping its schema, or migrating its own, at that moment makes the listing
 * fail with one of CATALOG_RACES. Only tests put many schemas in one database, so the retry lives
 * here, and only for a failure before any migration ran ("Migrations failed", not "Migration N
 * failed"): nothing was migrated then.
 */
export async function migrateTestSchema(database: Database): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await migrateToLatest(database);
      return;
    } catch (error) {
      const cause: unknown = error instanceof Error ? error.cause : undefined;
      const code = typeof cause === 'object' && cause !== null && 'code' in cause ? cause.code : undefined;
      const beforeAnyMigration = error instanceof Error && error.message === 'Migrations failed';
      if (!beforeAnyMigration || typeof code !== 'string' || !CATALOG_RACES.has(code) || attempt >= 5) throw error;
    }
  }
}

/**
 * A fresh, migrated database: a temporary SQLite file, or a random PostgreSQL schema reached
 * through `search_path` (so nothing is shared with other files or runs). destroy() removes it.
 */
export async function createTestDatabase(): Promise<Database> {
  if (TEST_DB === 'sqlite') {
    const dir = await mkdtemp(join(tmpdir(), 'foyer-test-'));
    const database = openDatabase({ kind: 'sqlite', filename: join(dir, 'foyer.sqlite') });
    await migrateToLatest(database);
    return {
      ...database,
      async destroy() {
        await database.destroy();
        await rm(dir, { recursive: true, force: true });
      },
    };
  }
  const url = inject('postgresUrl');
  const schema = `foyer_t_${randomBytes(8).toString('hex')}`;
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  await admin(`create schema ${schema}`);
  const database = openDatabase({ kind: 'postgres', connectionString: url }, { options: `-c search_path=${schema}`, max: 5 });
  await migrateTestSchema(database);
  return {
    ...database,
    async destroy() {
      await database.destroy();
      await admin(`drop schema ${schema} cascade`);
    },
  };
}

/** The test configuration: env test, cheap argon2 (tests only), no web build unless given. */
export function testConfig(env: Record<string, string> = {}): Config {
  return loadConfig({
    FOYER_ENV: 'test',
    PORT: '8080',
    ARGON2_MEMORY_KIB: '1024',
    ARGON2_TIME: '1',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    WEB_DIST: join(tmpdir(), `foyer-no-web-dist-${randomBytes(6).toString('hex')}`),
    // Deployed environments require SECRET_KEY, and `local` would make a key file in the
    // working directory: other environments get this one (`test` has its fixed key).
    ...(env.FOYER_ENV !== undefined && env.FOYER_ENV !== 'test' ? { SECRET_KEY: OTHER_ENV_SECRET_KEY } : {}),
    ...env,
  });
}

const OTHER_ENV_SECRET_KEY = 'a-test-secret-key-for-the-other-environments';

export interface TestApp {
  app: FastifyInstance;
  db: Database['db'];
  clock: ManualClock;
  config: Config;
  deps: Deps;
  close(): Promise<void>;
}

export interface TestAppOptions {
  /** Environment variables over the test defaults. */
  env?: Record<string, string>;
  /** Share a database (one per file); otherwise the app gets its own and close() removes it. */
  database?: Database;
  clock?: ManualClock;
  /** Log lines go here (read them with LOG_LEVEL set in env). */
  logStream?: LogStream;
}

export async function createTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const database = options.database ?? (await createTestDatabase());
  const config = testConfig(options.env);
  const clock = options.clock ?? new ManualClock();
  const app = await buildApp({ config, db: database.db, clock, ...(options.logStream === undefined ? {} : { logStream: options.logStream }) });
  await app.ready();
  return {
    app,
    db: database.db,
    clock,
    config,
    deps: { db: database.db, config, clock, passwords: app.passwords, redirects: app.redirects },
    async close() {
      await app.close();
      if (options.database === undefined) await database.destroy();
    },
  };
}

/**
 * One database per test file, a fresh app and clock per test. The returned object's fields are
 * filled in by the hooks, so read them inside tests only.
 */
export function useTestApp(options: Omit<TestAppOptions, 'database' | 'clock'> = {}): TestApp {
  let database: Database | undefined;
  const context = {} as TestApp;
  beforeAll(async () => {
    if (!dbUnavailable) database = await createTestDatabase();
  });
  afterAll(async () => {
    await database?.destroy();
  });
  beforeEach(async () => {
    if (database === undefined) return;
    Object.assign(context, await createTestApp({ ...options, database }));
  });
  afterEach(async () => {
    await context.app?.close();
  });
  return context;
}

export function uniqueEmail(prefix = 'person'): string {
  return `${prefix}-${randomBytes(5).toString('hex')}@example.com`;
}

/** A device id as the web creates one (spec §9: 12 characters). */
export function newDeviceId(): string {
  return randomBytes(9).toString('base64url');
}

export interface TestUser {
  user: UserRow;
  email: string;
  password: string;
}

export async function createTestUser(
  t: TestApp,
  options: { email?: string; password?: string; verified?: boolean; deactivated?: boolean; withoutPassword?: boolean } = {},
): Promise<TestUser> {
  const email = options.email ?? uniqueEmail();
  const password = options.password ?? `pw-${randomBytes(6).toString('hex')}`;
  const user = await createUser(
    t.deps,
    { email, hashPassword: sha256Hex(password), firstName: 'Ada', lastName: 'Lovelace', verified: options.verified ?? true },
    CLI_META,
  );
  if (options.deactivated === true) {
    await t.db.updateTable('users').set({ deactivated_at: t.clock.now() }).where('id', '=', user.id).execute();
  }
  if (options.withoutPassword === true) {
    await t.db.updateTable('users').set({ password_hash: null }).where('id', '=', user.id).execute();
  }
  return { user, email, password };
}

/** A valid double-submit pair (spec §7): the cookie and the header carry the same token. */
export function xsrf(token: string = randomToken()): { cookies: Record<string, string>; headers: Record<string, string> } {
  return { cookies: { [COOKIE_BASE_NAMES.xsrf]: token }, headers: { [XSRF_HEADER]: token } };
}

export function signInUrl(): string {
  return API_BASE + CALLS.signin.path;
}

/**
 * Holds the next password verification of `t`'s app until `release()`: `inside` resolves once a
 * request is waiting in it, so a test can commit something else meanwhile. Later verifications
 * run as usual; `restore()` undoes it.
 */
export function holdNextPasswordCheck(t: TestApp): { inside: Promise<void>; release: () => void; restore: () => void } {
  const passwords = t.app.passwords;
  const verify = passwords.verify.bind(passwords);
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  let entered!: () => void;
  const inside = new Promise<void>((resolve) => (entered = resolve));
  passwords.verify = async (storedHash, hashPassword) => {
    passwords.verify = verify;
    entered();
    await held;
    return verify(storedHash, hashPassword);
  };
  return { inside, release, restore: () => (passwords.verify = verify) };
}

export async function postSignIn(app: FastifyInstance, body: { email: string; password: string; deviceId?: string }): Promise<LightMyRequestResponse> {
  const pair = xsrf();
  return app.inject({
    method: 'POST',
    url: signInUrl(),
    cookies: pair.cookies,
    headers: pair.headers,
    payload: { email: body.email, hashPassword: sha256Hex(body.password), deviceId: body.deviceId ?? newDeviceId() },
  });
}

export interface SignedIn {
  otter: string;
  deviceId: string;
  response: LightMyRequestResponse;
}

export async function signIn(app: FastifyInstance, user: { email: string; password: string }, deviceId = newDeviceId()): Promise<SignedIn> {
  const response = await postSignIn(app, { ...user, deviceId });
  if (response.statusCode !== 200) throw new Error(`sign-in failed: ${response.statusCode} ${response.body}`);
  const { otter } = response.json<{ otter: string }>();
  return { otter, deviceId, response };
}

export function sessionCookieName(config: Config): string {
  return cookieName(COOKIE_BASE_NAMES.otter, config.env);
}

/** GET the session with the session cookie and a device id, as the web app does. */
export function getSession(t: TestApp, otter: string, deviceId: string): Promise<LightMyRequestResponse> {
  return t.app.inject({
    method: 'GET',
    url: API_BASE + CALLS.session.path,
    cookies: { [sessionCookieName(t.config)]: otter },
    headers: { [DEVICE_ID_HEADER]: deviceId },
  });
}

export type ResponseCookie = LightMyRequestResponse['cookies'][number];

export function setCookie(response: LightMyRequestResponse, name: string): ResponseCookie | undefined {
  return response.cookies.find((cookie) => cookie.name === name);
}

/**
 * A fault in one write: from now on, inserting a row into `table` for which `when` holds (an SQL
 * condition on `new.<column>`) fails, on either database (a trigger). Returns what removes it.
 */
export async function refuseInserts(db: Deps['db'], table: 'sessions' | 'email_tokens', when: string): Promise<() => Promise<void>> {
  const name = `refuse_${table}_${randomBytes(4).toString('hex')}`;
  if (TEST_DB === 'postgres') {
    await sql.raw(`create function ${name}() returns trigger language plpgsql as $$ begin raise exception 'refused'; end $$`).execute(db);
    await sql.raw(`create trigger ${name} before insert on ${table} for each row when (${when}) execute function ${name}()`).execute(db);
    return async () => {
      await sql.raw(`drop trigger ${name} on ${table}`).execute(db);
      await sql.raw(`drop function ${name}()`).execute(db);
    };
  }
  await sql.raw(`create trigger ${name} before insert on ${table} when ${when} begin select raise(abort, 'refused'); end`).execute(db);
  return async () => {
    await sql.raw(`drop trigger ${name}`).execute(db);
  };
}
