import { describe, expect, it } from 'vitest';
import { DatabaseUnavailableError, isConnectionLost, isDatabaseUnavailable } from './errors.js';

const withCode = (code: string, message = 'x') => Object.assign(new Error(message), { code });

/** Decision 0011: which failures are the database's outage (503) and which are bugs (500). */
describe('isDatabaseUnavailable', () => {
  it.each([
    ['connection refused', withCode('ECONNREFUSED')],
    ['connection reset', withCode('ECONNRESET')],
    ['terminated backend (admin_shutdown)', withCode('57P01')],
    ['server starting up (cannot_connect_now)', withCode('57P03')],
    ['connection exception class 08', withCode('08006')],
    ['statement timeout (query_canceled)', withCode('57014')],
    ['too many connections', withCode('53300')],
    ['pool connect timeout', new Error('timeout exceeded when trying to connect')],
    ['connection lost mid-query', new Error('Connection terminated unexpectedly')],
    ['no answer (query read timeout)', new Error('Query read timeout')],
    ['SQLite lock', withCode('SQLITE_BUSY')],
    ['SQLite lock, extended code', withCode('SQLITE_BUSY_SNAPSHOT')],
    ['lock wait past the deadline', new DatabaseUnavailableError('locked')],
    ['a standby after failover (read_only_sql_transaction)', withCode('25006')],
    ['the server out of disk (disk_full)', withCode('53100')],
    ['the server failing on its disk (io_error)', withCode('58030')],
    ['SQLite disk full', withCode('SQLITE_FULL')],
    ['SQLite file read-only', withCode('SQLITE_READONLY')],
    ['SQLite file moved away', withCode('SQLITE_READONLY_DBMOVED')],
    ['SQLite I/O error', withCode('SQLITE_IOERR_WRITE')],
    ['SQLite cannot open', withCode('SQLITE_CANTOPEN')],
    ['wrapped in a cause', new Error('migration failed', { cause: withCode('ECONNREFUSED') })],
    ['every address of a host refused', new AggregateError([withCode('ECONNREFUSED'), withCode('ECONNREFUSED')])],
    ['a database closed to connections', withCode('55000', 'database "foyer" is not currently accepting connections')],
    ['the password no longer accepted', withCode('28P01')],
    ['the database gone', withCode('3D000')],
  ])('%s: yes', (_name, error) => {
    expect(isDatabaseUnavailable(error)).toBe(true);
  });

  it.each([
    ['unique violation', withCode('23505')],
    [
      'a statement out of order (object_not_in_prerequisite_state), our bug',
      withCode('55000', 'currval of sequence "s" is not yet defined in this session'),
    ],
    ['syntax error, our bug', withCode('42601')],
    ['NUL byte in text', withCode('22021')],
    ['SQLite constraint', withCode('SQLITE_CONSTRAINT_UNIQUE')],
    ['SQLite syntax error, our bug', withCode('SQLITE_ERROR')],
    ['SQLite statement over its limits', withCode('SQLITE_TOOBIG')],
    ['a plain bug', new TypeError('undefined is not a function')],
    ['not an error', 'ECONNREFUSED'],
  ])('%s: no', (_name, error) => {
    expect(isDatabaseUnavailable(error)).toBe(false);
  });

  it('drops the connection only when it is lost, not on a statement timeout', () => {
    expect(isConnectionLost(new Error('Query read timeout'))).toBe(true);
    expect(isConnectionLost(withCode('57P01'))).toBe(true);
    expect(isConnectionLost(withCode('57014'))).toBe(false);
  });
});
