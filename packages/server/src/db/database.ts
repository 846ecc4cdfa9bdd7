import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, type SqliteDatabase, type SqliteStatement } from 'kysely';
import pg from 'pg';
import type { DatabaseConfig } from '../config.js';
import type { DB } from './schema.js';

export type Dialect = 'sqlite' | 'postgres';

export interface Database {
  db: Kysely<DB>;
  dialect: Dialect;
  destroy(): Promise<void>;
}

const INT8_OID = 20;

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

function openSqlite(filename: string): Kysely<DB> {
  if (filename !== ':memory:') mkdirSync(dirname(filename), { recursive: true });
  const sqlite = new SQLite(filename);
  // WAL lets readers run beside the writer; foreign keys are off by default in SQLite; a busy
  // timeout makes a second process (the admin CLI) wait for the lock instead of failing.
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  return new Kysely<DB>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }) });
}

export interface PostgresOptions {
  /** Extra libpq options, e.g. `-c search_path=<schema>` for an isolated test schema. */
  options?: string;
  max?: number;
}

function openPostgres(connectionString: string, extra: PostgresOptions): Kysely<DB> {
  const pool = new pg.Pool({
    connectionString,
    max: extra.max ?? 10,
    ...(extra.options === undefined ? {} : { options: extra.options }),
    // Times are int8 epoch milliseconds; pg returns int8 as strings unless told otherwise.
    // Per pool, not global, so nothing else in the process is affected.
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === INT8_OID && format !== 'binary' ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
    },
  });
  return new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
}

export function openDatabase(config: DatabaseConfig, postgres: PostgresOptions = {}): Database {
  const db = config.kind === 'sqlite' ? openSqlite(config.filename) : openPostgres(config.connectionString, postgres);
  return { db, dialect: config.kind, destroy: () => db.destroy() };
}
