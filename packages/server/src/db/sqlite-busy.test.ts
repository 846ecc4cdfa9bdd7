import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { afterEach, describe, expect, it } from 'vitest';
import { postSignUp, signUpBody } from '../../test/account-entry.js';
import { TEST_DB, createTestApp, postSignIn, uniqueEmail, type TestApp } from '../../test/helpers.js';
import { SecondWriter } from '../../test/second-writer.js';
import { openDatabase, type Database } from './database.js';
import { migrateToLatest } from './migrate.js';

/** Longer than any pause of a healthy event loop here, far shorter than the writer's hold. */
const EVENT_LOOP_LIMIT_MS = 250;

/**
 * Decision 0011: with a second process writing to the same file (the admin CLI, a second
 * instance), sign-ups wait for the lock without 500s and without stalling the event loop, and get
 * 503 only once the wait passed its deadline. SQLite only: the server-sqlite project runs it.
 */
describe.skipIf(TEST_DB !== 'sqlite')('SQLite with a second writer', () => {
  let dir = '';
  let database: Database | undefined;
  let t: TestApp | undefined;
  let writer: SecondWriter | undefined;

  afterEach(async () => {
    writer?.stop();
    await t?.close();
    await database?.destroy();
    await rm(dir, { recursive: true, force: true });
  });

  async function setUp(env: Record<string, string> = {}): Promise<{ t: TestApp; file: string }> {
    dir = await mkdtemp(join(tmpdir(), 'foyer-busy-'));
    const file = join(dir, 'foyer.sqlite');
    const timeoutMs = Number(env.DATABASE_TIMEOUT_MS ?? 5000);
    database = openDatabase({ kind: 'sqlite', filename: file }, { timeouts: { connectMs: 5000, statementMs: timeoutMs } });
    await migrateToLatest(database);
    t = await createTestApp({ database, env: { RATE_LIMITS: 'off', ...env } });
    return { t, file };
  }

  it('answers every sign-up 200 while another process holds the write lock again and again', async () => {
    const { t, file } = await setUp();
    writer = await SecondWriter.start(file, { holdMs: 500, gapMs: 100, durationMs: 3000 });
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    const statuses: number[] = [];
    for (let round = 0; round < 4; round++) {
      const answers = await Promise.all(Array.from({ length: 5 }, () => postSignUp(t, signUpBody())));
      statuses.push(...answers.map((answer) => answer.statusCode));
    }
    delay.disable();
    await writer.done();
    expect(statuses).toEqual(Array.from({ length: 20 }, () => 200));
    // The lock is waited for between asynchronous retries, never inside SQLite's blocking wait.
    expect(delay.max / 1e6).toBeLessThan(EVENT_LOOP_LIMIT_MS);
  });

  it('answers every request queued behind the lock 503 by the deadline, not one deadline after another', async () => {
    const { t, file } = await setUp({ DATABASE_TIMEOUT_MS: '800' });
    writer = await SecondWriter.start(file, { holdMs: 3500, gapMs: 0, durationMs: 0 });
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    const started = Date.now();
    const elapsed: number[] = [];
    const answers = await Promise.all(
      Array.from({ length: 100 }, async () => {
        // A sign-in writes its reservation before any hashing: all hundred reach the database at once.
        const answer = await postSignIn(t.app, { email: uniqueEmail('queued'), password: 'any password at all' });
        elapsed.push(Date.now() - started);
        return answer.statusCode;
      }),
    );
    delay.disable();
    expect(answers).toEqual(Array.from({ length: 100 }, () => 503));
    // Each answered by about the deadline (800 ms): not one deadline after another, nor one busy
    // wait after another once the deadline had passed.
    expect(Math.max(...elapsed)).toBeLessThan(1400);
    // A caller whose deadline passed while it queued runs no statement: no 10 ms busy wait each,
    // one after another, holding the event loop.
    expect(delay.max / 1e6).toBeLessThan(EVENT_LOOP_LIMIT_MS);
    await writer.done();
    expect((await postSignUp(t, signUpBody())).statusCode).toBe(200);
  });

  it('answers 503 with Retry-After once the lock was held past the deadline, and never blocks meanwhile', async () => {
    const { t, file } = await setUp({ DATABASE_TIMEOUT_MS: '800' });
    writer = await SecondWriter.start(file, { holdMs: 3000, gapMs: 0, durationMs: 0 });
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    const started = Date.now();
    const answer = await postSignUp(t, signUpBody());
    const elapsed = Date.now() - started;
    delay.disable();
    expect(answer.statusCode).toBe(503);
    expect(answer.json()).toEqual({ errorMessage: 'unavailable' });
    expect(Number(answer.headers['retry-after'])).toBeGreaterThan(0);
    expect(elapsed).toBeGreaterThanOrEqual(700);
    expect(elapsed).toBeLessThan(2500);
    expect(delay.max / 1e6).toBeLessThan(EVENT_LOOP_LIMIT_MS);
    await writer.done();
    // The lock is free again: the next sign-up goes through.
    expect((await postSignUp(t, signUpBody())).statusCode).toBe(200);
  });
});
