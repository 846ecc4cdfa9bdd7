/**
 * A reason the service cannot start, written for the operator who reads it (what is wrong, and
 * what to set). Boot prints its message alone, as it does a configuration error.
 */
export class BootError extends Error {
  override name = 'BootError';
}

interface SystemFailure {
  code?: unknown;
  syscall?: unknown;
  address?: unknown;
  port?: unknown;
  hostname?: unknown;
  severity?: unknown;
}

/** PostgreSQL's refusals of a connection (SQLSTATE): the server answered, and said no. */
const POSTGRES_REFUSALS: Record<string, string> = {
  '28P01': 'the password was not accepted',
  '28000': 'the role may not connect',
  '3D000': 'the database does not exist',
};

const PG_SILENT = /^(Connection terminated due to connection timeout|timeout expired|timeout exceeded when trying to connect)$/;

/**
 * The one line an operator needs for the failures a start commonly meets (the port taken, a
 * database that does not answer or refuses), or undefined for anything else, which is printed
 * whole with its stack.
 */
export function bootFailureText(error: unknown): string | undefined {
  if (error instanceof BootError) return error.message;
  if (!(error instanceof Error)) return undefined;
  const failure = error as Error & SystemFailure;
  const where = typeof failure.port === 'number' ? `${String(failure.address)}:${failure.port}` : undefined;
  if (failure.syscall === 'listen' && failure.code === 'EADDRINUSE')
    return `${where ?? 'the address'} is already in use: stop what listens there, or set PORT (or HOST)`;
  if (failure.syscall === 'listen' && failure.code === 'EACCES')
    return `listening on ${where ?? 'the address'} is not allowed for this user: set PORT to 1024 or above`;
  if (failure.code === 'ENOTFOUND' || failure.code === 'EAI_AGAIN') {
    return `the host ${String(failure.hostname ?? '')} could not be resolved: check HOST and DATABASE_URL`;
  }
  if (failure.code === 'ECONNREFUSED' || failure.code === 'EHOSTUNREACH' || failure.code === 'ETIMEDOUT') {
    return `nothing answered at ${where ?? 'the database'} (${String(failure.code)}): check DATABASE_URL, and that the database is running`;
  }
  // node-postgres gives up on a server that took the connection but never answered with an error
  // of no code, only one of these texts (the pool's, a lone client's, pg-pool's wait for a slot).
  if (failure.code === undefined && PG_SILENT.test(error.message)) {
    return `the database took the connection but did not answer (${error.message}): check DATABASE_URL, and that the database is running`;
  }
  if (typeof failure.code === 'string' && typeof failure.severity === 'string' && failure.code in POSTGRES_REFUSALS) {
    return `PostgreSQL refused the connection, ${POSTGRES_REFUSALS[failure.code]} (${error.message}): check DATABASE_URL`;
  }
  return undefined;
}
