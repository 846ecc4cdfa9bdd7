import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { PasswordHasher } from '../../lib/passwords.js';

/**
 * This instance's Prometheus metrics (decision 0018). Counters and histograms count what this
 * process saw; the gauges read from the database describe the shared state, so every instance
 * reports the same value for them (aggregate them with max, not sum).
 */
export interface Metrics {
  readonly registry: Registry;
  /** Password sign-ins by answer: `success` or the error code (spec §8). */
  readonly signIns: Counter<'outcome'>;
  /** Answers 429 rateLimitExeeded, by route. */
  readonly rateLimitRefusals: Counter<'route'>;
  /** Each argon2 call, waiting for an argon2 thread included (decision 0011). */
  readonly argon2Seconds: Histogram<'operation'>;
  readonly requestSeconds: Histogram<'method' | 'route' | 'status_code'>;
  readonly mailDue: Gauge;
  readonly mailOldestDueAgeSeconds: Gauge;
  readonly lockedEmails: Gauge;
  readonly databaseUp: Gauge;
}

export function createMetrics(): Metrics {
  const registry = new Registry();
  // CPU, memory, heap, event-loop delay, handles and GC of this process, under their usual names.
  collectDefaultMetrics({ register: registry });
  const registers = [registry];
  return {
    registry,
    signIns: new Counter({
      name: 'foyer_signins_total',
      help: 'Password sign-ins by outcome (success or the error code answered).',
      labelNames: ['outcome'],
      registers,
    }),
    rateLimitRefusals: new Counter({
      name: 'foyer_rate_limit_refusals_total',
      help: 'Requests refused with 429 rateLimitExeeded, by route.',
      labelNames: ['route'],
      registers,
    }),
    argon2Seconds: new Histogram({
      name: 'foyer_argon2_duration_seconds',
      help: 'Duration of argon2id hashes and verifications, waiting for an argon2 thread included.',
      labelNames: ['operation'],
      buckets: [0.01, 0.025, 0.05, 0.1, 0.2, 0.35, 0.5, 1, 2, 5],
      registers,
    }),
    requestSeconds: new Histogram({
      name: 'foyer_http_request_duration_seconds',
      help: 'Time from the request to its answer, by method, route template and status code.',
      labelNames: ['method', 'route', 'status_code'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    }),
    mailDue: new Gauge({ name: 'foyer_mail_outbox_due', help: 'Unsent mail due now in the shared outbox (read from the database at scrape).', registers }),
    mailOldestDueAgeSeconds: new Gauge({
      name: 'foyer_mail_outbox_oldest_due_age_seconds',
      help: 'Age of the oldest unsent mail due now; 0 when none is due (read from the database at scrape).',
      registers,
    }),
    lockedEmails: new Gauge({
      name: 'foyer_lockout_locked_emails',
      help: 'Emails whose sign-in is locked now after repeated failures (read from the database at scrape).',
      registers,
    }),
    databaseUp: new Gauge({ name: 'foyer_database_up', help: '1 when the database answered the scrape, 0 when it did not.', registers }),
  };
}

/** The same hasher, timing every argon2 call into the histogram. */
export function timedPasswordHasher(inner: PasswordHasher, histogram: Histogram<'operation'>): PasswordHasher {
  const timed = <T>(operation: string, run: () => Promise<T>): Promise<T> => {
    const stop = histogram.startTimer({ operation });
    return run().finally(() => {
      stop();
    });
  };
  return {
    hash: (hashPassword) => timed('hash', () => inner.hash(hashPassword)),
    verify: (storedHash, hashPassword) => timed('verify', () => inner.verify(storedHash, hashPassword)),
    verifyDummy: (hashPassword) => timed('verifyDummy', () => inner.verifyDummy(hashPassword)),
    needsRehash: (storedHash) => inner.needsRehash(storedHash),
  };
}
