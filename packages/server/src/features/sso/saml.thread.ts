import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { SsoLandingCode } from '@foyer/contract';
import type { SamlAssertion, SamlConnectionSettings } from './saml.response.js';
import { SsoFailure } from './sso.failure.js';

/** What the main thread asks of a SAML thread (saml.worker.ts). */
export type SamlJob =
  | { kind: 'response'; settings: SamlConnectionSettings; samlResponse: string; now: number }
  | { kind: 'authnRequest'; settings: SamlConnectionSettings; requestId: string; relayState: string }
  | { kind: 'metadata'; entityId: string; acsUrl: string };

export type SamlJobResult = { ok: true; value: unknown } | { ok: false; failure: { code: SsoLandingCode; reason: string } } | { ok: false; error: string };

export interface SamlThreadOptions {
  /** At most this many threads; by default one per core, at most 4. */
  threads?: number;
  /** A thread with nothing to do for this long ends, and gives back its memory. */
  idleMs?: number;
  /** A job still running after this long is refused and its thread ended. */
  deadlineMs?: number;
  /** At most this many jobs wait for a thread; one more is refused at once (a response with 1002). */
  maxWaiting?: number;
}

export const SAML_THREAD_IDLE_MS = 5_000;
export const SAML_JOB_DEADLINE_MS = 10_000;
/**
 * About a second of checks on two cores. Without a bound, a flood of responses that are slow to
 * check would queue on the main thread, which (unlike when the checks held the event loop) keeps
 * reading new ones, until memory ran out.
 */
export const SAML_MAX_WAITING = 256;

/**
 * The heap a SAML thread may use. A response is at most 48 KB and parses into a few MB; a document
 * made to need more ends its thread (the response refused), never the service.
 */
const RESOURCE_LIMITS = { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 16 };

interface Waiting {
  job: SamlJob;
  resolve: (result: SamlJobResult) => void;
}

interface Thread {
  worker: Worker;
  running: Waiting | undefined;
  deadline: NodeJS.Timeout | undefined;
  idle: NodeJS.Timeout | undefined;
}

function startWorker(): Worker {
  const options = { execArgv: [], resourceLimits: RESOURCE_LIMITS };
  const here = import.meta.url;
  if (!here.endsWith('.ts')) return new Worker(new URL('./saml.worker.js', here), options);
  // Run from the TypeScript source (the tests, `npm run openapi`): the thread loads it through tsx,
  // as the service itself was loaded.
  const tsx = import.meta.resolve('tsx/esm/api');
  const file = new URL('./saml.worker.ts', here).href;
  const load = `import(${JSON.stringify(tsx)}).then(({ tsImport }) => tsImport(${JSON.stringify(file)}, ${JSON.stringify(file)}))`;
  return new Worker(load, { ...options, eval: true });
}

/** What a job that got no answer ends in: a refused response (1002, `reason` in the audit log), or an error. */
function unanswered(job: SamlJob, reason: string): SamlJobResult {
  return job.kind === 'response' ? { ok: false, failure: { code: '1002', reason } } : { ok: false, error: reason };
}

/**
 * Decision 0022 (performance): a SAML response's checks (two parses, XPath queries, canonical XML,
 * the RSA signature: 4–6 ms of CPU), the AuthnRequest's deflated XML and the service provider's
 * metadata run on worker threads, so
 * the event loop keeps serving every other sign-in and session check meanwhile, and a SAML burst
 * uses every core, as argon2id does (decision 0011). The main thread keeps the database work.
 *
 * Each thread takes one job at a time from a queue on the main thread. Threads start with the
 * first job (the SAML libraries are loaded there, never in the main thread) and end after
 * `idleMs` without one. A job that outlives its deadline, or whose thread dies (its heap limit
 * reached, a crash), is refused and only that thread is replaced; a job that finds `maxWaiting`
 * others waiting is refused at once.
 */
export class SamlThreads {
  private readonly threads = new Set<Thread>();
  private readonly waiting: Waiting[] = [];
  private readonly size: number;
  private readonly idleMs: number;
  private readonly deadlineMs: number;
  private readonly maxWaiting: number;
  private closed = false;

  constructor(options: SamlThreadOptions = {}) {
    this.size = Math.max(1, options.threads ?? Math.min(4, availableParallelism()));
    this.idleMs = options.idleMs ?? SAML_THREAD_IDLE_MS;
    this.deadlineMs = options.deadlineMs ?? SAML_JOB_DEADLINE_MS;
    this.maxWaiting = options.maxWaiting ?? SAML_MAX_WAITING;
  }

  /** saml.response.ts `validateSamlResponse` on a SAML thread: the assertion, or SsoFailure 1002. */
  async validateResponse(settings: SamlConnectionSettings, samlResponse: string, now: number): Promise<SamlAssertion> {
    return (await this.run({ kind: 'response', settings, samlResponse, now })) as SamlAssertion;
  }

  /** saml.response.ts `authnRequestUrl` on a SAML thread. */
  async authnRequestUrl(settings: SamlConnectionSettings, input: { requestId: string; relayState: string }): Promise<string> {
    return (await this.run({ kind: 'authnRequest', settings, ...input })) as string;
  }

  /** saml.metadata.ts `serviceProviderMetadata` on a SAML thread. */
  async serviceProviderMetadata(input: { entityId: string; acsUrl: string }): Promise<string> {
    return (await this.run({ kind: 'metadata', ...input })) as string;
  }

  /** Threads running now. */
  get running(): number {
    return this.threads.size;
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const waiting of this.waiting.splice(0)) waiting.resolve(unanswered(waiting.job, 'unreadable: the service is stopping'));
    await Promise.all([...this.threads].map((thread) => this.end(thread, 'the service is stopping')));
  }

  private async run(job: SamlJob): Promise<unknown> {
    if (this.closed) throw new Error('the SAML threads are closed');
    const result = await new Promise<SamlJobResult>((resolve) => {
      this.waiting.push({ job, resolve });
      this.dispatch();
      if (this.waiting.length > this.maxWaiting) {
        (this.waiting.pop() as Waiting).resolve(unanswered(job, `busy: ${this.maxWaiting} jobs already waiting for a SAML thread`));
      }
    });
    if (result.ok) return result.value;
    if ('failure' in result) throw new SsoFailure(result.failure.code, result.failure.reason);
    throw new Error(result.error);
  }

  private dispatch(): void {
    while (this.waiting.length > 0 && !this.closed) {
      let thread = [...this.threads].find((candidate) => candidate.running === undefined);
      if (thread === undefined) {
        if (this.threads.size >= this.size) return;
        thread = this.start();
      }
      const next = this.waiting.shift() as Waiting;
      const chosen = thread;
      clearTimeout(chosen.idle);
      chosen.running = next;
      chosen.deadline = setTimeout(() => void this.end(chosen, `the check took longer than ${this.deadlineMs} ms`), this.deadlineMs).unref();
      chosen.worker.postMessage(next.job);
    }
  }

  private start(): Thread {
    const worker = startWorker();
    // A thread never keeps the process alive; a request waiting on it does.
    worker.unref();
    const thread: Thread = { worker, running: undefined, deadline: undefined, idle: undefined };
    worker.on('message', (result: SamlJobResult) => {
      const done = thread.running;
      clearTimeout(thread.deadline);
      thread.running = undefined;
      done?.resolve(result);
      thread.idle = setTimeout(() => void this.end(thread, 'idle'), this.idleMs).unref();
      this.dispatch();
    });
    worker.on('error', (error) => void this.end(thread, `the SAML thread failed: ${error.message}`));
    worker.on('exit', () => void this.end(thread, 'the SAML thread stopped'));
    this.threads.add(thread);
    return thread;
  }

  /** Ends a thread; the job it was running, if any, ends with `why`, and the queue moves on. */
  private async end(thread: Thread, why: string): Promise<void> {
    if (!this.threads.delete(thread)) return;
    clearTimeout(thread.deadline);
    clearTimeout(thread.idle);
    const lost = thread.running;
    thread.running = undefined;
    lost?.resolve(unanswered(lost.job, `unreadable: ${why}`));
    this.dispatch();
    await thread.worker.terminate();
  }
}
