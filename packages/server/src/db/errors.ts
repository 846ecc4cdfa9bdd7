/**
 * True when a write failed on a unique constraint, on either database: the race-free way to
 * learn "this email is taken" is to let the unique index decide.
 */
export function isUniqueViolation(error: unknown): boolean {
  if (typeof error !== 'object' || error === null || !('code' in error)) return false;
  const code = (error as { code: unknown }).code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/**
 * The database could not answer in time (decision 0011): a lock held past the deadline, no free
 * connection, no answer from the server. The request is then refused with 503, never 500.
 */
export class DatabaseUnavailableError extends Error {
  override name = 'DatabaseUnavailableError';
}

/** Socket-level failures: the connection is gone or never came. */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

/**
 * PostgreSQL SQLSTATEs after which the server ends the session: admin_shutdown (a restart or
 * pg_terminate_backend), crash_shutdown, cannot_connect_now (starting up, or a standby).
 */
const SESSION_ENDED_CODES = new Set(['57P01', '57P02', '57P03']);

/**
 * Transient PostgreSQL answers on a live connection: statement timeout (query_canceled), lock
 * timeout, serialization failure and deadlock (try again), too many connections.
 */
const TRANSIENT_CODES = new Set(['57014', '55P03', '40001', '40P01', '53300']);

/**
 * PostgreSQL refusing every write (read_only_sql_transaction: a standby after a failover, or a
 * database set read-only) or failing on its own disk (class 58, system_error and io_error).
 */
const SERVER_STATE_CODES = new Set(['25006']);

/**
 * PostgreSQL refusing a new connection: the password or role no longer accepted, the database
 * gone (invalid_password, invalid_authorization_specification, invalid_catalog_name). No request
 * can cause these, and the probes already call the database down: the calls answer 503 with them.
 */
const CONNECT_REFUSED_CODES = new Set(['28P01', '28000', '3D000']);

/**
 * object_not_in_prerequisite_state is also what a connection gets from a database that does not
 * accept connections (`ALTER DATABASE … ALLOW_CONNECTIONS false`, maintenance), told by its
 * message; elsewhere the code is a statement's own mistake.
 */
function isConnectionsNotAccepted(code: string, link: object): boolean {
  return code === '55000' && link instanceof Error && link.message.includes('is not currently accepting connections');
}

/**
 * SQLite's failures of the file, not of the statement: the disk full (or the size limit met),
 * the file or its directory read-only, an I/O error, a file it cannot open, no memory. Prefixes,
 * for their extended codes (`SQLITE_READONLY_DBMOVED`, `SQLITE_IOERR_WRITE`).
 */
const SQLITE_STORAGE_PREFIXES = ['SQLITE_FULL', 'SQLITE_READONLY', 'SQLITE_IOERR', 'SQLITE_CANTOPEN', 'SQLITE_NOMEM'];

/** pg and pg-pool report a dead or slow connection by message only. */
const CONNECTION_MESSAGES = ['Connection terminated', 'timeout exceeded when trying to connect', 'Query read timeout', 'is not queryable'];

function codeOf(error: object): string | undefined {
  return 'code' in error && typeof error.code === 'string' ? error.code : undefined;
}

/** The error, its causes, and an AggregateError's members (a host with several addresses). */
function* chain(error: unknown, depth = 0): Generator<object> {
  if (typeof error !== 'object' || error === null || depth > 5) return;
  yield error;
  if (error instanceof AggregateError) for (const inner of error.errors) yield* chain(inner, depth + 1);
  if ('cause' in error) yield* chain(error.cause, depth + 1);
}

/**
 * The connection this error came from cannot be trusted again: it is closed, or a query on it
 * got no answer (a frozen server would answer it later, out of turn). Such a client is dropped
 * from the pool instead of being reused.
 */
export function isConnectionLost(error: unknown): boolean {
  for (const link of chain(error)) {
    const code = codeOf(link);
    if (code !== undefined && (SOCKET_CODES.has(code) || SESSION_ENDED_CODES.has(code) || code.startsWith('08'))) return true;
    const message = link instanceof Error ? link.message : '';
    if (CONNECTION_MESSAGES.some((text) => message.includes(text))) return true;
  }
  return false;
}

/** SQLite's "database is locked" (SQLITE_BUSY and its extended codes). */
export function isSqliteBusy(error: unknown): boolean {
  for (const link of chain(error)) if (codeOf(link)?.startsWith('SQLITE_BUSY') === true) return true;
  return false;
}

/**
 * True when a request failed because the database is unreachable, frozen, overloaded, locked,
 * read-only or out of disk rather than because of the request: it is answered 503 `unavailable` with Retry-After, which a
 * client may retry, and it says nothing about the data (no existence oracle).
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (isConnectionLost(error) || isSqliteBusy(error)) return true;
  for (const link of chain(error)) {
    if (link instanceof DatabaseUnavailableError) return true;
    const code = codeOf(link);
    if (code === undefined) continue;
    if (TRANSIENT_CODES.has(code) || SERVER_STATE_CODES.has(code) || code.startsWith('53') || code.startsWith('58')) return true;
    if (CONNECT_REFUSED_CODES.has(code) || isConnectionsNotAccepted(code, link)) return true;
    if (SQLITE_STORAGE_PREFIXES.some((prefix) => code.startsWith(prefix))) return true;
  }
  return false;
}

/** An outage's error in one line for a warning (no stack: an outage repeats it every poll). */
export function databaseReason(error: unknown): string {
  const code = typeof error === 'object' && error !== null ? codeOf(error) : undefined;
  const message = error instanceof Error ? error.message : String(error);
  return code === undefined ? message : `${code}: ${message}`;
}
