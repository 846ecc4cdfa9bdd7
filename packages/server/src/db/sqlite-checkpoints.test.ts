import { existsSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BACKSTOP_PAGES, SQLITE_AUTOCHECKPOINT_PAGES, startCheckpointThread, type CheckpointThread } from './sqlite-checkpoints.js';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

async function until(condition: () => boolean, timeoutMs = 5000): Promise<boolean> {
  const giveUpAt = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > giveUpAt) return false;
    await sleep(20);
  }
  return true;
}

/** Decision 0029: WAL checkpoints run on a thread of their own, not in the service's commits. */
describe('the SQLite checkpoint thread', () => {
  let dir = '';
  let file = '';
  let sqlite: SQLite.Database;
  let thread: CheckpointThread | undefined;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'foyer-checkpoints-'));
    file = join(dir, 'foyer.sqlite');
    sqlite = new SQLite(file);
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('synchronous = NORMAL');
    sqlite.exec('create table notes (id integer primary key, body text not null)');
  });

  afterEach(async () => {
    await thread?.stop();
    thread = undefined;
    if (sqlite.open) sqlite.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('copies committed pages into the database file while the service only commits', async () => {
    const errors: Error[] = [];
    thread = startCheckpointThread(sqlite, file, (error) => errors.push(error));
    expect(sqlite.pragma('wal_autocheckpoint', { simple: true })).toBe(BACKSTOP_PAGES);
    const before = statSync(file).size;
    // About 100 pages: far below the 1,000 at which SQLite's own checkpoint would run.
    const insert = sqlite.prepare('insert into notes (body) values (?)');
    for (let n = 0; n < 100; n += 1) insert.run('x'.repeat(3000));
    expect(statSync(`${file}-wal`).size).toBeGreaterThan(100 * 3000);
    expect(await until(() => statSync(file).size >= before + 100 * 3000)).toBe(true);
    expect(errors).toEqual([]);
  });

  it('stops before the service closes, so the service’s close checkpoints the rest and removes the WAL', async () => {
    thread = startCheckpointThread(sqlite, file, () => undefined);
    sqlite.prepare('insert into notes (body) values (?)').run('last words');
    await thread.stop();
    sqlite.close();
    expect(existsSync(`${file}-wal`)).toBe(false);
    const reopened = new SQLite(file, { readonly: true });
    try {
      expect(reopened.prepare('select body from notes').pluck().all()).toEqual(['last words']);
    } finally {
      reopened.close();
    }
  });

  it('hands the checkpoints back to SQLite, and says so, when the thread fails', async () => {
    const errors: Error[] = [];
    // A file the thread cannot open: it fails at once, as it would if the file were taken away.
    thread = startCheckpointThread(sqlite, join(dir, 'gone', 'foyer.sqlite'), (error) => errors.push(error));
    expect(await until(() => errors.length > 0)).toBe(true);
    expect(sqlite.pragma('wal_autocheckpoint', { simple: true })).toBe(SQLITE_AUTOCHECKPOINT_PAGES);
    // The service goes on writing.
    sqlite.prepare('insert into notes (body) values (?)').run('still here');
    expect(sqlite.prepare('select count(*) from notes').pluck().get()).toBe(1);
    await sleep(50);
    expect(errors).toHaveLength(1);
  });
});
