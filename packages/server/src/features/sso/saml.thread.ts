import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { SsoLandingCode } from '@foyer/contract';
import type { SamlAssertion, SamlConnectionSettings } from './saml.response.js';
import { ThreadPool, type Unanswered } from '../../lib/threads.js';
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
  /** At most this many jobs wait for a thread (beyond the two each thread holds); one more is refused at once (a response with 1002). */
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

/** What a job that got no answer ends in: a refused response (1002, the reason in the audit log), or an error. */
function unanswered(job: SamlJob, why: Unanswered): SamlJobResult {
  const reason = why.kind === 'busy' ? why.message : `unreadable: ${why.message}`;
  return job.kind === 'response' ? { ok: false, failure: { code: '1002', reason } } : { ok: false, error: reason };
}

/**
 * Decision 0022 (performance): a SAML response's checks (two parses, XPath queries, canonical XML,
 * the RSA signature: 4–6 ms of CPU), the AuthnRequest's deflated XML and the service provider's
 * metadata run on worker threads, so
 * the event loop keeps serving every other sign-in and session check meanwhile, and a SAML burst
 * uses every core, as argon2id does (decision 0011). The main thread keeps the database work.
 *
 * Each thread checks one job at a time and holds the next, which it starts as soon as it is done
 * (lib/threads.ts), and the rest wait in a queue on the main thread. Threads start with the
 * first job (the SAML libraries are loaded there, never in the main thread) and end after
 * `idleMs` without one. A job that outlives its deadline, or whose thread dies (its heap limit
 * reached, a crash), is refused and only that thread is replaced; a job that finds `maxWaiting`
 * others waiting is refused at once.
 */
export class SamlThreads {
  private readonly pool: ThreadPool<SamlJob, SamlJobResult>;

  constructor(options: SamlThreadOptions = {}) {
    this.pool = new ThreadPool({
      name: 'SAML',
      job: 'check',
      threads: Math.max(1, options.threads ?? Math.min(4, availableParallelism())),
      perThread: 2,
      idleMs: options.idleMs ?? SAML_THREAD_IDLE_MS,
      deadlineMs: options.deadlineMs ?? SAML_JOB_DEADLINE_MS,
      maxWaiting: options.maxWaiting ?? SAML_MAX_WAITING,
      start: startWorker,
      unanswered,
    });
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
    return this.pool.running;
  }

  close(): Promise<void> {
    return this.pool.close();
  }

  private async run(job: SamlJob): Promise<unknown> {
    const result = await this.pool.run(job);
    if (result.ok) return result.value;
    if ('failure' in result) throw new SsoFailure(result.failure.code, result.failure.reason);
    throw new Error(result.error);
  }
}
