import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, type PostgresCursor, type PostgresPool, type PostgresPoolClient, type PostgresQueryResult } from 'kysely';
import type Pg from 'pg';
import type { DatabaseConfig } from '../config.js';
import { traceQueries } from '../features/tracing/db-spans.js';
import { loadOnUse } from '../lib/load-on-use.js';
import { isConnectionLost } from './errors.js';
import { statementNameOf } from './prepared.js';
import type { DB } from './schema.js';
import { startCheckpointThread } from './sqlite-checkpoints.js';
import { ImmediateSqliteDialect, SQLITE_BUSY_WAIT_MS } from './sqlite-driver.js';

export type Dialect = 'sqlite' | 'postgres';

export interface Database {
  db: Kysely<DB>;
  dialect: Dialect;
  destroy(): Promise<void>;
}

/** Every wait on the database has a deadline (decision 0011); past it the request gets 503. */
export interface DatabaseTimeouts {
  /** Opening a PostgreSQL connection, or waiting for a free one in the pool. */
  connectMs: number;
  /** One statement, including waiting for a lock (SQLite's write lock too). */
  statementMs: number;
}

export const DEFAULT_DATABASE_TIMEOUTS: DatabaseTimeouts = { connectMs: 5000, statementMs: 5000 };

/**
 * The server-side statement_timeout cancels a slow statement cleanly; this client-side margin
 * beyond it catches a server that no longer answers at all (frozen, or a half-open connection).
 */
const QUERY_TIMEOUT_MARGIN_MS = 1000;
/** A transaction left open (a frozen instance) must not hold its row locks for long. */
const IDLE_IN_TRANSACTION_MS = 30_000;
/** PostgreSQL connections per instance unless DATABASE_POOL_SIZE says otherwise (decision 0018). */
export const DEFAULT_POOL_SIZE = 10;
/** TCP keepalive finds connections that a failover or a proxy dropped without a word. */
const KEEPALIVE_DELAY_MS = 10_000;

export interface DatabaseOptions {
  /** Extra libpq options, e.g. `-c search_path=<schema>` for an isolated test schema. */
  options?: string;
  /** Pool size; over the configuration's DATABASE_POOL_SIZE (tests and the CLI keep theirs small). */
  max?: number;
  timeouts?: DatabaseTimeouts;
  /** A pooled PostgreSQL connection broke while idle (restart, failover, terminated backend). */
  onConnectionError?: (error: Error) => void;
  /**
   * SQLite: WAL checkpoints on a thread of their own (decision 0029), for the service; the CLI's
   * short runs and the tests keep SQLite's own. Called when the thread fails: SQLite's own
   * checkpoints are then back in force.
   */
  checkpointThread?: { onError: (error: Error) => void };
}

const INT8_OID = 20;

/**
 * The service's SQLite page cache, in KiB (decision 0029, memory): SQLite's own default. The
 * better-sqlite3 build sets 16,000 KiB, which a write-heavy load (the forum's round trips, each an
 * audit row and a nonce) filled: 15 MB more resident memory that stayed after the load. Foyer's hot
 * reads are primary-key and index lookups whose inner pages fit in this cache; leaf pages beyond it
 * are read from the operating system's file cache.
 */
export const SQLITE_PAGE_CACHE_KIB = 2000;

function openSqlite(filename: string, timeouts: DatabaseTimeouts, options: DatabaseOptions): Database {
  if (filename !== ':memory:') mkdirSync(dirname(filename), { recursive: true });
  const sqlite = new SQLite(filename, { timeout: SQLITE_BUSY_WAIT_MS });
  // WAL lets readers run beside the writer; in WAL, synchronous=NORMAL is still durable against
  // application crashes and never corrupts, and commits no longer fsync each time (the WAL is
  // synced at checkpoints), which kept the event loop waiting on the disk. Foreign keys are off by
  // default in SQLite.
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma(`cache_size = -${SQLITE_PAGE_CACHE_KIB}`);
  const db = new Kysely<DB>({ dialect: new ImmediateSqliteDialect(sqlite, timeouts.statementMs), log: traceQueries('sqlite') });
  const checkpoints =
    options.checkpointThread === undefined || filename === ':memory:'
      ? undefined
      : startCheckpointThread(sqlite, filename, options.checkpointThread.onError);
  return {
    db,
    dialect: 'sqlite',
    async destroy() {
      // The thread's connection closes first: the service's, closing last, checkpoints what is left.
      await checkpoints?.stop();
      await db.destroy();
    },
  };
}

/**
 * Kysely's view of the pool. A client whose query failed on a lost connection or got no answer
 * is released with the error, so the pool drops it instead of lending it out again: after a
 * database restart or a freeze, the next request gets a fresh connection. Until then, every later
 * query on it fails at once with the same error.
 */
function guardedPool(pool: Pg.Pool): PostgresPool {
  return {
    async connect(): Promise<PostgresPoolClient> {
      const client = await pool.connect();
      let lost: Error | undefined;
      function query<R>(sql: string, parameters: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>>;
      function query<R>(cursor: PostgresCursor<R>): PostgresCursor<R>;
      function query<R>(
        sqlOrCursor: string | PostgresCursor<R>,
        parameters?: ReadonlyArray<unknown>,
      ): Promise<PostgresQueryResult<R>> | PostgresCursor<R> {
        if (typeof sqlOrCursor !== 'string') throw new Error('streaming queries are not used');
        // Nothing more goes to a connection that was lost or stopped answering: the ROLLBACK
        // Kysely sends after a failed statement would wait out a second deadline on it, and the
        // server ends the transaction itself when the connection is dropped.
        if (lost !== undefined) return Promise.reject(lost);
        const values = parameters === undefined ? [] : [...parameters];
        // A hot statement (decision 0029) is prepared once per connection under its name.
        const name = statementNameOf(sqlOrCursor);
        return (name === undefined ? client.query(sqlOrCursor, values) : client.query({ name, text: sqlOrCursor, values })).then(
          // pg's result is what Kysely's PostgresDriver reads; only its declared types are wider.
          (result) => result as unknown as PostgresQueryResult<R>,
          (error: unknown) => {
            if (isConnectionLost(error)) lost = error instanceof Error ? error : new Error(String(error));
            throw error;
          },
        );
      }
      return { query, release: () => client.release(lost) };
    },
    end: () => pool.end(),
  };
}

function openPostgres(config: Extract<DatabaseConfig, { kind: 'postgres' }>, extra: DatabaseOptions, timeouts: DatabaseTimeouts): Kysely<DB> {
  // The driver is loaded here: a service on SQLite never holds it.
  const pg = loadOnUse<typeof Pg>('pg');
  const pool = new pg.Pool({
    connectionString: config.connectionString,
    max: extra.max ?? config.poolSize ?? DEFAULT_POOL_SIZE,
    ...(extra.options === undefined ? {} : { options: extra.options }),
    connectionTimeoutMillis: timeouts.connectMs,
    statement_timeout: timeouts.statementMs,
    query_timeout: timeouts.statementMs + QUERY_TIMEOUT_MARGIN_MS,
    idle_in_transaction_session_timeout: IDLE_IN_TRANSACTION_MS,
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEPALIVE_DELAY_MS,
    // Times are int8 epoch milliseconds; pg returns int8 as strings unless told otherwise.
    // Per pool, not global, so nothing else in the process is affected.
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === INT8_OID && format !== 'binary' ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
    },
  });
  // Without these listeners a connection that breaks (a database restart, pg_terminate_backend,
  // a proxy reset) emits an unhandled 'error' and ends the process. Idle clients report through
  // the pool; a client that is lent out reports to itself, and its query fails and is answered.
  pool.on('error', (error) => extra.onConnectionError?.(error));
  pool.on('connect', (client) => client.on('error', () => undefined));
  return new Kysely<DB>({ dialect: new PostgresDialect({ pool: guardedPool(pool) }), log: traceQueries('postgresql') });
}

export function openDatabase(config: DatabaseConfig, options: DatabaseOptions = {}): Database {
  const timeouts = options.timeouts ?? DEFAULT_DATABASE_TIMEOUTS;
  if (config.kind === 'sqlite') return openSqlite(config.filename, timeouts, options);
  const db = openPostgres(config, options, timeouts);
  return { db, dialect: 'postgres', destroy: () => db.destroy() };
}
