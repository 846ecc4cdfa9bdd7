import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const SERVER_DIR = fileURLToPath(new URL('..', import.meta.url));

/**
 * A second process writing to the same SQLite file, as the admin CLI or another instance does:
 * it takes the write lock (BEGIN IMMEDIATE), holds it `holdMs`, commits, waits `gapMs`, and again
 * until `durationMs` passed. It blocks only itself while it holds the lock.
 */
const SCRIPT = `
import Database from 'better-sqlite3';
const [file, holdMs, gapMs, durationMs] = process.argv.slice(1).map((v, i) => (i === 0 ? v : Number(v)));
const db = new Database(file, { timeout: 60000 });
db.exec('create table if not exists second_writer (at integer)');
const pause = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
const end = Date.now() + durationMs;
let first = true;
do {
  db.exec('begin immediate');
  db.prepare('insert into second_writer values (?)').run(Date.now());
  if (first) { process.stdout.write('locked\\n'); first = false; }
  pause(holdMs);
  db.exec('commit');
  pause(gapMs);
} while (Date.now() < end);
db.close();
`;

export class SecondWriter {
  private constructor(private readonly child: ChildProcess) {}

  /** Resolves once the writer holds the lock for the first time. */
  static async start(file: string, options: { holdMs: number; gapMs: number; durationMs: number }): Promise<SecondWriter> {
    const args = [file, options.holdMs, options.gapMs, options.durationMs].map(String);
    const child = spawn(process.execPath, ['--input-type=module', '-e', SCRIPT, ...args], { cwd: SERVER_DIR, stdio: ['ignore', 'pipe', 'pipe'] });
    let errors = '';
    child.stderr?.on('data', (chunk: Buffer) => (errors += chunk.toString()));
    await new Promise<void>((resolve, reject) => {
      child.stdout?.once('data', () => resolve());
      child.once('exit', (code) => reject(new Error(`second writer exited (${code}): ${errors}`)));
    });
    return new SecondWriter(child);
  }

  /** Resolves when it finished; rejects if it failed. */
  async done(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const code = await new Promise<number | null>((resolve) => this.child.once('exit', resolve));
    if (code !== 0) throw new Error(`second writer failed (${code})`);
  }

  stop(): void {
    if (this.child.exitCode === null) this.child.kill('SIGTERM');
  }
}
