import type { Worker } from 'node:worker_threads';

/** Why a job got no answer from its thread: it was lost on the way, or refused before it started. */
export type Unanswered = { kind: 'lost'; message: string } | { kind: 'busy'; message: string };

export interface ThreadPoolOptions<J, R> {
  /** For messages: "the SAML thread failed", "the argon2 thread stopped". */
  name: string;
  /** What one job is called in messages: "the check took longer than …". */
  job: string;
  /** At most this many threads. */
  threads: number;
  /**
   * Jobs a thread holds at once: the one it runs, and the ones already handed to it that it takes
   * up the moment it is done, without waiting for the main thread (which may be busy) to hand it
   * the next. 1 for long jobs, whose order and deadlines matter more than the gap between them.
   */
  perThread: number;
  /** A thread with nothing to do for this long ends, and gives back its memory. */
  idleMs: number;
  /** A job still running after this long is refused and its thread ended. */
  deadlineMs: number;
  /** At most this many jobs wait for a thread; one more is refused at once. */
  maxWaiting: number;
  /** Starts one thread. Each message it posts answers the oldest job it holds. */
  start: () => Worker;
  /** What a job that got no answer resolves to. */
  unanswered: (job: J, why: Unanswered) => R;
}

interface Waiting<J, R> {
  job: J;
  resolve: (result: R) => void;
}

interface Thread<J, R> {
  worker: Worker;
  /** The jobs handed to the thread, oldest (running) first. */
  held: Array<Waiting<J, R>>;
  deadline: NodeJS.Timeout | undefined;
  idle: NodeJS.Timeout | undefined;
}

/**
 * Worker threads that take jobs from one queue on the main thread (decisions 0011 and 0022).
 * Threads start with the first job that finds none free and end after `idleMs` without one. A
 * job that outlives its deadline, or whose thread dies (its heap limit reached, a crash), gets its
 * `unanswered` result and only that thread is replaced; the jobs the dead thread held but had not
 * started go back to the head of the queue. A job that finds `maxWaiting` others waiting is
 * refused at once. A thread keeps the process alive only while it holds a job.
 */
export class ThreadPool<J, R> {
  private readonly threads = new Set<Thread<J, R>>();
  private readonly waiting: Array<Waiting<J, R>> = [];
  private closed = false;

  constructor(private readonly options: ThreadPoolOptions<J, R>) {}

  /** Threads running now. */
  get running(): number {
    return this.threads.size;
  }

  run(job: J): Promise<R> {
    if (this.closed) return Promise.reject(new Error(`the ${this.options.name} threads are closed`));
    return new Promise<R>((resolve) => {
      this.waiting.push({ job, resolve });
      this.dispatch();
      if (this.waiting.length > this.options.maxWaiting) {
        const message = `busy: ${this.options.maxWaiting} jobs already waiting for a ${this.options.name} thread`;
        resolve(this.options.unanswered((this.waiting.pop() as Waiting<J, R>).job, { kind: 'busy', message }));
      }
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    const message = 'the service is stopping';
    for (const waiting of this.waiting.splice(0)) waiting.resolve(this.options.unanswered(waiting.job, { kind: 'lost', message }));
    await Promise.all([...this.threads].map((thread) => this.end(thread, message)));
  }

  /** A free thread first, then a new one, then the least loaded thread with room for one more. */
  private pick(): Thread<J, R> | undefined {
    let least: Thread<J, R> | undefined;
    for (const thread of this.threads) {
      if (thread.held.length === 0) return thread;
      if (thread.held.length < this.options.perThread && (least === undefined || thread.held.length < least.held.length)) least = thread;
    }
    if (this.threads.size < this.options.threads) return this.start();
    return least;
  }

  private dispatch(): void {
    while (this.waiting.length > 0 && !this.closed) {
      const thread = this.pick();
      if (thread === undefined) return;
      const next = this.waiting.shift() as Waiting<J, R>;
      if (thread.held.length === 0) {
        clearTimeout(thread.idle);
        thread.worker.ref();
      }
      thread.held.push(next);
      if (thread.held.length === 1) this.startDeadline(thread);
      thread.worker.postMessage(next.job);
    }
  }

  /** The deadline of the job the thread is running now, counted from when it reached the thread's head. */
  private startDeadline(thread: Thread<J, R>): void {
    const { deadlineMs, job } = this.options;
    thread.deadline = setTimeout(() => void this.end(thread, `the ${job} took longer than ${deadlineMs} ms`), deadlineMs).unref();
  }

  private start(): Thread<J, R> {
    const worker = this.options.start();
    const thread: Thread<J, R> = { worker, held: [], deadline: undefined, idle: undefined };
    worker.on('message', (result: R) => {
      const done = thread.held.shift();
      clearTimeout(thread.deadline);
      done?.resolve(result);
      if (thread.held.length > 0) this.startDeadline(thread);
      else {
        worker.unref();
        thread.idle = setTimeout(() => void this.end(thread, 'idle'), this.options.idleMs).unref();
      }
      this.dispatch();
    });
    worker.on('error', (error) => void this.end(thread, `the ${this.options.name} thread failed: ${error.message}`));
    worker.on('exit', () => void this.end(thread, `the ${this.options.name} thread stopped`));
    this.threads.add(thread);
    return thread;
  }

  /**
   * Ends a thread. The job it was running ends with `why`; those it held but had not started wait
   * again, first in line, unless the pool is closing.
   */
  private async end(thread: Thread<J, R>, why: string): Promise<void> {
    if (!this.threads.delete(thread)) return;
    clearTimeout(thread.deadline);
    clearTimeout(thread.idle);
    const [lost, ...unstarted] = thread.held.splice(0);
    lost?.resolve(this.options.unanswered(lost.job, { kind: 'lost', message: why }));
    if (this.closed) for (const waiting of unstarted) waiting.resolve(this.options.unanswered(waiting.job, { kind: 'lost', message: why }));
    else this.waiting.unshift(...unstarted);
    this.dispatch();
    await thread.worker.terminate();
  }
}
