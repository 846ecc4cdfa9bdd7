import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { Clock } from '../../lib/clock.js';
import type { MailTransport } from './mail.transports.js';
import { claimDue, markFailed, markSent, type OutboxRow } from './outbox.repo.js';

/** First retry after 10 s, doubling each time, never more than 15 minutes apart. */
export const RETRY_BASE_MS = 10_000;
export const RETRY_CAP_MS = 15 * 60_000;
/** From this many failed attempts on, each failure is logged at warn: someone should look. */
export const WARN_AFTER_ATTEMPTS = 8;
/**
 * Rows claimed per round, and how long the claim holds. The lease must outlast a whole batch of
 * worst-case attempts (5 × ~50 s of SMTP timeouts), or another instance could send a row twice.
 */
const BATCH_SIZE = 5;
const LEASE_MS = 5 * 60_000;
const MAX_ERROR_LENGTH = 500;

/** Delay before the next attempt after `attempts` failures (1, 2, …). Mail is never dropped. */
export function retryDelayMs(attempts: number): number {
  return Math.min(RETRY_BASE_MS * 2 ** Math.max(0, attempts - 1), RETRY_CAP_MS);
}

/** The transport's error for last_error and the log: a code and a message, no credentials. */
export function describeError(error: unknown): string {
  const code = typeof error === 'object' && error !== null && 'code' in error ? String((error as { code: unknown }).code) : undefined;
  const message = error instanceof Error ? error.message : String(error);
  const text = [code, message].filter((part) => part !== undefined && part !== '').join(': ');
  return text.replace(/\b([a-z][a-z0-9+.-]*:\/\/)[^@\s/]+@/gi, '$1[redacted]@').slice(0, MAX_ERROR_LENGTH);
}

export interface MailWorkerDeps {
  db: Kysely<DB>;
  clock: Clock;
  log: FastifyBaseLogger;
}

/**
 * Delivers the outbox (decision 0009). Polls every `pollMs` and at once when nudged; claims due
 * rows, sends each, and marks it sent or schedules the next attempt with exponential back-off.
 * Everything it needs to resume is in the table, so a restart, or another instance, picks up
 * where it stopped. Delivery is at least once: a crash between sending and marking sends again.
 */
export class MailWorker {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = true;

  constructor(
    private readonly deps: MailWorkerDeps,
    /** Undefined when there is nowhere to deliver: mail then waits in the outbox. */
    readonly transport: MailTransport | undefined,
    private readonly pollMs: number,
  ) {}

  start(): void {
    if (this.transport === undefined || !this.stopped) return;
    this.stopped = false;
    this.schedule(0);
  }

  /** Mail was just queued: deliver now rather than at the next poll. */
  nudge(): void {
    if (this.stopped) return;
    if (this.running !== undefined) this.again = true;
    else this.schedule(0);
  }

  /** Stops polling and waits for the round in flight, so no claim is left behind. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
    await this.transport?.close();
  }

  /** One round: claims due rows and attempts each once. Returns how many were attempted. */
  async runOnce(): Promise<number> {
    const transport = this.transport;
    if (transport === undefined) return 0;
    const now = this.deps.clock.now();
    const rows = await claimDue(this.deps.db, { now, leaseUntil: now + LEASE_MS, limit: BATCH_SIZE });
    for (const row of rows) await this.deliver(transport, row);
    return rows.length;
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.tick(), ms);
    // Never the reason the process stays alive.
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    if (this.running !== undefined) {
      this.again = true;
      return;
    }
    this.again = false;
    this.running = this.drain();
    await this.running;
    this.running = undefined;
    this.schedule(this.again ? 0 : this.pollMs);
  }

  private async drain(): Promise<void> {
    try {
      while (!this.stopped && (await this.runOnce()) === BATCH_SIZE) {
        // A full batch: more may be due.
      }
    } catch (error) {
      // The database is unreachable or similar: the rows stay as they were; the next poll retries.
      this.deps.log.error({ err: error }, 'mail worker round failed');
    }
  }

  private async deliver(transport: MailTransport, row: OutboxRow): Promise<void> {
    const { db, clock, log } = this.deps;
    try {
      await transport.send({
        id: row.id,
        kind: row.kind,
        to: row.to_address,
        locale: row.locale,
        subject: row.subject,
        text: row.text_body,
        html: row.html_body,
      });
    } catch (error) {
      const attempts = row.attempts + 1;
      const delay = retryDelayMs(attempts);
      const reason = describeError(error);
      await markFailed(db, row.id, { attempts, nextAttemptAt: clock.now() + delay, error: reason });
      const entry = { mailId: row.id, kind: row.kind, attempts, retryInMs: delay, error: reason };
      if (attempts >= WARN_AFTER_ATTEMPTS) log.warn(entry, 'mail still undelivered; will keep retrying');
      else log.info(entry, 'mail delivery failed; will retry');
      return;
    }
    await markSent(db, row.id, clock.now());
    log.info({ mailId: row.id, kind: row.kind, transport: transport.name }, 'mail delivered');
  }
}
