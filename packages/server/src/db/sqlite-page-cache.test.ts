import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { TEST_DB } from '../../test/helpers.js';
import { openDatabase, SQLITE_PAGE_CACHE_KIB, type Database } from './database.js';

/**
 * Decision 0029 (memory): the service's SQLite connection keeps SQLite's own 2 MB page cache, not
 * the 16 MB the driver's build sets, which a write-heavy load filled and kept resident.
 */
describe.skipIf(TEST_DB !== 'sqlite')('the SQLite page cache', () => {
  let dir = '';
  let database: Database | undefined;

  afterEach(async () => {
    await database?.destroy();
    await rm(dir, { recursive: true, force: true });
  });

  it('is 2,000 KiB on the service’s connection, where the driver alone would keep 16,000', async () => {
    dir = await mkdtemp(join(tmpdir(), 'foyer-page-cache-'));
    const file = join(dir, 'foyer.sqlite');
    const bare = new SQLite(file);
    expect(bare.pragma('cache_size', { simple: true })).toBe(-16_000);
    bare.close();

    database = openDatabase({ kind: 'sqlite', filename: file });
    const { rows } = await sql<{ cache_size: number }>`pragma cache_size`.execute(database.db);
    expect(SQLITE_PAGE_CACHE_KIB).toBe(2000);
    expect(rows[0]?.cache_size).toBe(-SQLITE_PAGE_CACHE_KIB);
  });
});
