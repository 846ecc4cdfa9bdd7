import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { ThreadPool, type ThreadPoolOptions, type Unanswered } from './threads.js';

/** A job for the test thread: work `ms` milliseconds, or end the thread on the spot. */
type Job = { id: string; ms: number } | { id: string; exit: true };
type Result = { id: string; startedAt: number; thread: number } | { id: string; unanswered: Unanswered };

/** Works each job synchronously, as the argon2 thread does, and says when it started it. */
const TEST_THREAD = `
const { parentPort, threadId } = require('node:worker_threads');
parentPort.on('message', (job) => {
  if (job.exit) process.exit(3);
  const startedAt = Date.now();
  while (Date.now() - startedAt < job.ms) {}
  parentPort.postMessage({ id: job.id, startedAt, thread: threadId });
});
`;

function blockMainThread(ms: number): number {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    // The event loop is busy with something else: no answer can be taken, no job handed out.
  }
  return Date.now();
}

describe('ThreadPool', () => {
  const pools: Array<ThreadPool<Job, Result>> = [];
  const pool = (options: Partial<ThreadPoolOptions<Job, Result>> = {}) => {
    const made = new ThreadPool<Job, Result>({
      name: 'test',
      job: 'job',
      threads: 1,
      perThread: 1,
      idleMs: 5_000,
      deadlineMs: 10_000,
      maxWaiting: 100,
      start: () => new Worker(TEST_THREAD, { eval: true, execArgv: [] }),
      unanswered: (job, why) => ({ id: job.id, unanswered: why }),
      ...options,
    });
    pools.push(made);
    return made;
  };

  afterEach(async () => {
    await Promise.all(pools.splice(0).map((made) => made.close()));
  });

  /** Two 30 ms jobs handed out, then the main thread busy for 400 ms: when each started, and when it was free again. */
  async function twoJobsWhileBlocked(perThread: number) {
    const threads = pool({ perThread });
    await threads.run({ id: 'warm', ms: 0 });
    const jobs = Promise.all([threads.run({ id: 'a', ms: 30 }), threads.run({ id: 'b', ms: 30 })]);
    const freed = blockMainThread(400);
    const [a, b] = await jobs;
    if (!('startedAt' in a) || !('startedAt' in b)) throw new Error('a job got no answer');
    return { a, b, freed };
  }

  it('with two jobs to a thread, the thread starts the second while the main thread is busy', async () => {
    const { a, b, freed } = await twoJobsWhileBlocked(2);
    expect(b.startedAt).toBeGreaterThanOrEqual(a.startedAt + 30);
    expect(b.startedAt).toBeLessThan(freed);
  });

  it('with one job to a thread, the next waits for the main thread to hand it over', async () => {
    const { b, freed } = await twoJobsWhileBlocked(1);
    expect(b.startedAt).toBeGreaterThanOrEqual(freed);
  });

  it('spreads jobs over free threads before it doubles up on one', async () => {
    const threads = pool({ threads: 2, perThread: 2 });
    const answers = await Promise.all(['a', 'b'].map((id) => threads.run({ id, ms: 50 })));
    const used = new Set(answers.map((answer) => ('thread' in answer ? answer.thread : -1)));
    expect(used.size).toBe(2);
    expect(threads.running).toBe(2);
  });

  it('answers the job a dead thread was running as lost, and runs the ones it held on a new thread', async () => {
    const threads = pool({ perThread: 2 });
    const dying = threads.run({ id: 'dies', exit: true });
    const held = threads.run({ id: 'held', ms: 1 });
    expect(await dying).toEqual({ id: 'dies', unanswered: { kind: 'lost', message: 'the test thread stopped' } });
    expect(await held).toMatchObject({ id: 'held', startedAt: expect.any(Number) as number });
    expect(threads.running).toBe(1);
  });

  it('refuses a job at once when its queue is full', async () => {
    const threads = pool({ perThread: 2, maxWaiting: 1 });
    const taken = ['a', 'b', 'c'].map((id) => threads.run({ id, ms: 20 }));
    expect(await threads.run({ id: 'd', ms: 1 })).toEqual({
      id: 'd',
      unanswered: { kind: 'busy', message: 'busy: 1 jobs already waiting for a test thread' },
    });
    expect((await Promise.all(taken)).map((answer) => answer.id)).toEqual(['a', 'b', 'c']);
  });

  it('answers every job it holds or keeps waiting when closed, and takes no more', async () => {
    const threads = pool({ perThread: 2 });
    const jobs = ['a', 'b', 'c'].map((id) => threads.run({ id, ms: 200 }));
    await threads.close();
    for (const answer of await Promise.all(jobs)) expect(answer).toMatchObject({ unanswered: { kind: 'lost', message: 'the service is stopping' } });
    expect(threads.running).toBe(0);
    await expect(threads.run({ id: 'late', ms: 1 })).rejects.toThrow('the test threads are closed');
  });
});
