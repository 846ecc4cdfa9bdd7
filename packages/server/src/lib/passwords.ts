import { parseOptions, type Algorithm, type Options } from '@node-rs/argon2';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { randomToken } from './crypto.js';
import { AppError } from './errors.js';
import { ThreadPool } from './threads.js';

// `Algorithm` is an ambient const enum, which isolatedModules cannot inline; 2 is Argon2id.
const ARGON2ID: Algorithm.Argon2id = 2;

export interface Argon2Params {
  memoryCost: number;
  timeCost: number;
  parallelism: number;
}

export interface PasswordHasher {
  /** argon2id over the browser's SHA-256 hex (spec §5; ASVS V11.4.2). */
  hash(hashPassword: string): Promise<string>;
  /** False for a mismatch or a malformed stored hash; runs on an argon2 thread. */
  verify(storedHash: string, hashPassword: string): Promise<boolean>;
  /**
   * Spends the same work as a real verification and always fails. Used when there is no hash
   * to check (unknown email, locked email, account without password): closes the timing channel
   * that would otherwise tell which emails have accounts (ASVS V6.3.8).
   */
  verifyDummy(hashPassword: string): Promise<false>;
  /** True when a stored hash was made with other parameters than today's (upgrade on sign-in). */
  needsRehash(storedHash: string): boolean;
}

/** A hasher that owns its threads; whoever made it closes it. */
export interface ClosablePasswordHasher extends PasswordHasher {
  /** Ends the threads; hashes still waiting fail. */
  close(): Promise<void>;
}

/** What the main thread asks of an argon2 thread. */
type Argon2Job = { op: 'hash'; password: string; options: Options } | { op: 'verify'; hash: string; password: string };
/** Its answer; `lost` when the thread never answered (ended, stopping). */
type Argon2Result = { ok: true; value: string | boolean } | { ok: false; error: string } | { ok: false; lost: string } | { ok: false; busy: string };

/**
 * The argon2 thread: one job at a time, in the order they came, synchronously (the thread has
 * nothing else to do). Plain JavaScript, so the thread starts in milliseconds whether the service
 * runs from its build or from source; @node-rs/argon2 comes from the path the main thread resolved.
 */
const ARGON2_THREAD = `
const { parentPort, workerData } = require('node:worker_threads');
const { hashSync, verifySync } = require(workerData.argon2);
parentPort.on('message', (job) => {
  let result;
  try {
    const value = job.op === 'verify' ? verifySync(job.hash, job.password) : hashSync(job.password, job.options);
    result = { ok: true, value };
  } catch (error) {
    result = { ok: false, error: String(error && error.message ? error.message : error) };
  }
  parentPort.postMessage(result);
});
`;

/** Ends an idle argon2 thread, as the SAML threads do: a thread holds about 10 MB. */
const ARGON2_THREAD_IDLE_MS = 5_000;
/** A hash takes milliseconds; one still running after this long has a thread in trouble. */
const ARGON2_JOB_DEADLINE_MS = 30_000;
/**
 * Hashes that may wait per thread: at about 10 ms each, a little over a second of work. One more
 * is refused at once with 503 `unavailable` (Retry-After), whatever its email, so a flood of
 * sign-ins from many addresses cannot make every sign-in wait without bound (decision 0011).
 */
export const ARGON2_WAITING_PER_THREAD = 128;

/**
 * Decision 0011: argon2id runs on threads of its own, one per core, not on libuv's threadpool.
 * Each thread holds two jobs: it runs one and starts the next the moment it is done, without
 * waiting for the event loop (busy with other requests) to take the answer and hand it another.
 * On the threadpool, with one hash per core at a time, cores sat idle between hashes; with more,
 * the hashes shared the cores and each took longer. Jobs beyond that wait in order on the main
 * thread, off the event loop. File reads and DNS lookups keep the whole threadpool.
 *
 * Async because the dummy hash is made up front: the first unknown email must not be slower.
 */
export async function createPasswordHasher(params: Argon2Params, threads: number = availableParallelism()): Promise<ClosablePasswordHasher> {
  const options: Options = { algorithm: ARGON2ID, ...params };
  const argon2 = createRequire(import.meta.url).resolve('@node-rs/argon2');
  const pool = new ThreadPool<Argon2Job, Argon2Result>({
    name: 'argon2',
    job: 'hash',
    threads: Math.max(1, threads),
    perThread: 2,
    idleMs: ARGON2_THREAD_IDLE_MS,
    deadlineMs: ARGON2_JOB_DEADLINE_MS,
    maxWaiting: Math.max(1, threads) * ARGON2_WAITING_PER_THREAD,
    start: () => new Worker(ARGON2_THREAD, { eval: true, execArgv: [], workerData: { argon2 } }),
    unanswered: (_job, why) => (why.kind === 'busy' ? { ok: false, busy: why.message } : { ok: false, lost: why.message }),
  });

  /** The thread's answer; a thread that never answered is the service's failure, never a wrong password. */
  async function run(job: Argon2Job): Promise<{ ok: true; value: string | boolean } | { ok: false; error: string }> {
    const result = await pool.run(job);
    if (!result.ok && 'busy' in result) throw new AppError('unavailable', { cause: new Error(`argon2 ${job.op} refused: ${result.busy}`) });
    if (!result.ok && 'lost' in result) throw new Error(`argon2 ${job.op} got no answer: ${result.lost}`);
    return result;
  }
  async function hashOf(password: string): Promise<string> {
    const result = await run({ op: 'hash', password, options });
    if (!result.ok) throw new Error(`argon2 hash failed: ${result.error}`);
    return result.value as string;
  }
  /** False for a mismatch; a stored value that is not a PHC string never matches. */
  async function verifies(hash: string, password: string): Promise<boolean> {
    const result = await run({ op: 'verify', hash, password });
    return result.ok && result.value === true;
  }

  const dummyHash = await hashOf(randomToken());
  /** The PHC prefix of a hash made today (`$argon2id$v=19$m=…,t=…,p=…$`), read off one: the salt and digest follow it. */
  const todaysPrefix = dummyHash.split('$').slice(0, 4).join('$') + '$';
  return {
    hash: hashOf,
    verify: verifies,
    async verifyDummy(hashPassword) {
      await verifies(dummyHash, hashPassword);
      return false;
    },
    close: () => pool.close(),
    needsRehash(storedHash) {
      // Nearly every stored hash was made with today's parameters: a prefix comparison says so
      // without the library's parse, a native call that cost a sign-in's main thread about 25 µs.
      if (storedHash.startsWith(todaysPrefix)) return false;
      try {
        const current = parseOptions(storedHash);
        return (
          current.algorithm !== ARGON2ID ||
          current.memoryCost !== params.memoryCost ||
          current.timeCost !== params.timeCost ||
          current.parallelism !== params.parallelism
        );
      } catch {
        return true;
      }
    },
  };
}
