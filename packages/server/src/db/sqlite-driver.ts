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
  /**
   * When the current holder began waiting for the connection, plus the deadline: waiting for the
   * lock never takes a request past it, however long it queued behind others (set at acquire).
   */
  holderDeadlineAt = Number.POSITIVE_INFINITY;

  constructor(
    private readonly inner: DatabaseConnection,
    private readonly sqlite: SQLite.Database,
    private readonly deadlineMs: number,
  ) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const giveUpAt = Math.min(Date.now() + this.deadlineMs, this.holderDeadlineAt);
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
  /** Callers holding or waiting for the connection. */
  private holders = 0;

  constructor(
    config: SqliteDialectConfig,
    private readonly sqlite: SQLite.Database,
    private readonly deadlineMs: number,
  ) {
    super(config);
  }

  /**
   * Kysely hands its one SQLite connection to one caller at a time; while another process holds
   * the write lock, the callers queue behind the one retrying. Their wait counts towards the same
   * deadline (decision 0011): one still queued when it passes gets 503 at once, and the
   * connection it would have had goes straight back.
   */
  override async acquireConnection(): Promise<DatabaseConnection> {
    const waitingSince = Date.now();
    const contended = this.holders > 0;
    this.holders++;
    let inner: DatabaseConnection | undefined;
    try {
      // The common case, no one ahead: no timer.
      inner = contended ? await this.withinDeadline(super.acquireConnection()) : await super.acquireConnection();
    } finally {
      if (inner === undefined) this.holders--;
    }
    const deadlineAt = waitingSince + this.deadlineMs;
    if (contended && Date.now() >= deadlineAt) {
      // The connection came after this caller's deadline (handed from one waiter to the next
      // within the same turn, before any timer could fire): straight back, and 503, without a
      // statement that would block on SQLite's busy wait.
      await this.releaseConnection();
      throw this.stayedBusy();
    }
    this.connection ??= new BusyRetryingConnection(inner, this.sqlite, this.deadlineMs);
    this.connection.holderDeadlineAt = deadlineAt;
    return this.connection;
  }

  override async releaseConnection(): Promise<void> {
    this.holders--;
    await super.releaseConnection();
  }

  private async withinDeadline(acquiring: Promise<DatabaseConnection>): Promise<DatabaseConnection> {
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), this.deadlineMs);
    });
    const inner = await Promise.race([acquiring, timedOut]);
    clearTimeout(timer);
    if (inner !== undefined) return inner;
    // Still queued: the connection this caller would have had goes straight back when it comes.
    void acquiring.then(() => super.releaseConnection());
    throw this.stayedBusy();
  }

  private stayedBusy(): DatabaseUnavailableError {
    return new DatabaseUnavailableError(`the SQLite connection stayed busy for ${this.deadlineMs} ms`);
  }

  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }

  /**
   * After a full disk, an I/O error or no memory SQLite may have rolled the transaction back
   * itself; a ROLLBACK then fails ("no transaction is active") and its error would replace the
   * one that says what happened.
   */
  override async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    if (this.sqlite.inTransaction) await super.rollbackTransaction(connection);
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
