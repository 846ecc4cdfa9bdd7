import { once } from 'node:events';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type SQLite from 'better-sqlite3';

/** How often the thread copies what the WAL holds into the database file. */
export const CHECKPOINT_INTERVAL_MS = 100;
/**
 * The main connection's own checkpoint stays as a backstop, at this many WAL pages (40 MB): when
 * writes never pause long enough for the WAL to start over after the thread's checkpoint, or when
 * the thread is gone.
 */
export const BACKSTOP_PAGES = 10_000;
/** SQLite's own threshold, back in force when the thread fails. */
export const SQLITE_AUTOCHECKPOINT_PAGES = 1000;
/** The thread closes its connection when asked; past this it is ended. */
const STOP_TIMEOUT_MS = 2000;

/**
 * The thread: a connection of its own to the file, and a PASSIVE checkpoint on a timer, which
 * copies what it can without waiting for or blocking the service's reads and writes. A busy
 * answer (another checkpoint runs, in this process or another) waits for the next turn; any other
 * error ends the thread, and the service falls back to SQLite's own checkpoints.
 */
const THREAD = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.filename, { timeout: 0, fileMustExist: true });
db.pragma('synchronous = NORMAL');
const checkpoint = () => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch (error) {
    if (error.code !== 'SQLITE_BUSY' && error.code !== 'SQLITE_LOCKED') throw error;
  }
};
const timer = setInterval(checkpoint, workerData.intervalMs);
parentPort.once('message', () => {
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

export interface CheckpointThread {
  /** Closes the thread's connection and ends it; the service's connection is closed after. */
  stop(): Promise<void>;
}

/**
 * Decision 0029: in WAL mode SQLite checkpoints inside a commit, once the WAL reaches 1,000 pages,
 * and with synchronous=NORMAL each checkpoint waits for two fsyncs, all on the event loop. Under
 * the bench's write loads that was over half of a commit's cost on average, and a stall of several
 * milliseconds for whoever committed at that moment. This thread does the checkpoints instead.
 */
export function startCheckpointThread(sqlite: SQLite.Database, filename: string, onError: (error: Error) => void): CheckpointThread {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(THREAD, {
    eval: true,
    execArgv: [],
    workerData: { driver, filename, intervalMs: CHECKPOINT_INTERVAL_MS },
    // It holds a connection and a timer; a small heap is all it needs.
    resourceLimits: { maxOldGenerationSizeMb: 8, maxYoungGenerationSizeMb: 2 },
  });
  // The timer never keeps the process alive: a stop that was not asked for ends with the process.
  worker.unref();
  sqlite.pragma(`wal_autocheckpoint = ${BACKSTOP_PAGES}`);
  let stopping = false;
  let failed = false;
  const fallBack = (error: Error) => {
    if (stopping || failed) return;
    failed = true;
    if (sqlite.open) sqlite.pragma(`wal_autocheckpoint = ${SQLITE_AUTOCHECKPOINT_PAGES}`);
    onError(error);
  };
  worker.on('error', fallBack);
  worker.on('exit', (code) => fallBack(new Error(`the SQLite checkpoint thread stopped (exit code ${code})`)));
  return {
    async stop() {
      if (stopping) return;
      stopping = true;
      if (failed) return;
      const exited = once(worker, 'exit');
      worker.postMessage('stop');
      const timeout = setTimeout(() => void worker.terminate(), STOP_TIMEOUT_MS);
      try {
        await exited;
      } finally {
        clearTimeout(timeout);
      }
    },
  };
}
