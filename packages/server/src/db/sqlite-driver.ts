import type SQLite from 'better-sqlite3';
import {
  CompiledQuery,
  SqliteDialect,
  SqliteDriver,
  type DatabaseConnection,
  type Driver,
  type QueryResult,
  type SqliteDatabase,
  type SqliteDialectConfig,
  type SqliteStatement,
} from 'kysely';
import { DatabaseUnavailableError, isSqliteBusy } from './errors.js';

/**
 * How long better-sqlite3 itself waits for a lock. Its wait blocks the event loop (every request
 * of the process stalls), so it stays short; longer waits happen between asynchronous retries.
 */
export const SQLITE_BUSY_WAIT_MS = 10;
const RETRY_FIRST_MS = 2;
const RETRY_MAX_MS = 25;

/** Enough for every statement the service issues; beyond it, statements are prepared per use. */
const STATEMENT_CACHE_SIZE = 256;

/**
 * Kysely prepares every statement anew; SQLite's compile step is then a large share of a cheap
 * query such as the session check. Reusing prepared statements is safe: Kysely runs one query
 * at a time on its single SQLite connection.
 */
function withStatementCache(sqlite: SQLite.Database): SqliteDatabase {
  const cache = new Map<string, SqliteStatement>();
  return {
    close: () => sqlite.close(),
    prepare(sql) {
      let statement = cache.get(sql);
      if (statement === undefined) {
        statement = sqlite.prepare(sql);
        if (cache.size < STATEMENT_CACHE_SIZE) cache.set(sql, statement);
      }
      return statement;
    },
  };
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Retries a statement that found the database locked by another process (the admin CLI, a second
 * instance on one file) after an asynchronous pause, so the event loop keeps serving while it
 * waits, until the deadline; then the request gets 503 (decision 0011). Only statements that
 * SQLite documents as safe to retry are: BEGIN and any statement outside a transaction (nothing was
 * done), and COMMIT. Inside a transaction the error is passed on and Kysely rolls back.
 */
class BusyRetryingConnection implements DatabaseConnection {
  constructor(
    private readonly inner: DatabaseConnection,
    private readonly sqlite: SQLite.Database,
    private readonly deadlineMs: number,
  ) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const giveUpAt = Date.now() + this.deadlineMs;
    for (let delay = RETRY_FIRST_MS; ; delay = Math.min(delay * 2, RETRY_MAX_MS)) {
      try {
        return await this.inner.executeQuery<R>(query);
      } catch (error) {
        if (!isSqliteBusy(error) || (this.sqlite.inTransaction && !/^\s*commit\b/i.test(query.sql))) throw error;
        if (Date.now() + delay > giveUpAt) throw new DatabaseUnavailableError(`SQLite stayed locked for ${this.deadlineMs} ms`, { cause: error });
        // Jitter: two processes retrying in step would keep colliding.
        await sleep(delay / 2 + Math.random() * delay);
      }
    }
  }

  streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    return this.inner.streamQuery<R>(query, chunkSize);
  }
}

/**
 * Kysely's driver begins transactions deferred: the write lock is taken at the first write, and a
 * transaction that read before another process committed then fails with SQLITE_BUSY_SNAPSHOT at
 * once, whatever the busy timeout. BEGIN IMMEDIATE takes the write lock first, where waiting for
 * it is safe to retry.
 */
class ImmediateSqliteDriver extends SqliteDriver {
  private connection: BusyRetryingConnection | undefined;

  constructor(
    config: SqliteDialectConfig,
    private readonly sqlite: SQLite.Database,
    private readonly deadlineMs: number,
  ) {
    super(config);
  }

  override async acquireConnection(): Promise<DatabaseConnection> {
    const inner = await super.acquireConnection();
    this.connection ??= new BusyRetryingConnection(inner, this.sqlite, this.deadlineMs);
    return this.connection;
  }

  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

export class ImmediateSqliteDialect extends SqliteDialect {
  private readonly config: SqliteDialectConfig;
  private readonly sqlite: SQLite.Database;
  private readonly deadlineMs: number;

  constructor(sqlite: SQLite.Database, deadlineMs: number) {
    const config = { database: withStatementCache(sqlite) };
    super(config);
    this.config = config;
    this.sqlite = sqlite;
    this.deadlineMs = deadlineMs;
  }

  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.config, this.sqlite, this.deadlineMs);
  }
}
