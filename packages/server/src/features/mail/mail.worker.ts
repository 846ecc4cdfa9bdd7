import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import { databaseReason, isDatabaseUnavailable } from '../../db/errors.js';
import type { Clock } from '../../lib/clock.js';
import { SMTP_CONNECTIONS, type MailTransport } from './mail.transports.js';
import { openMail, SealedMailError, type MailContent, type OutboxKey } from './outbox.crypto.js';
import { claimDue, markBounced, markFailed, markSent, releaseClaims, type OutboxRow } from './outbox.repo.js';

/** First retry after 10 s, doubling each time, never more than 15 minutes apart. */
export const RETRY_BASE_MS = 10_000;
export const RETRY_CAP_MS = 15 * 60_000;
/** From this many failed attempts on, each failure is logged at warn: someone should look. */
export const WARN_AFTER_ATTEMPTS = 8;
/**
 * Rows claimed per round, sent SMTP_CONNECTIONS at a time, and how long the claim holds. The lease
 * must outlast a whole batch of worst-case attempts (16 / 4 × ~25 s of SMTP timeouts), or another
 * instance could send a row twice.
 */
export const BATCH_SIZE = 16;
const LEASE_MS = 5 * 60_000;
/**
 * How long closing waits for sends in flight before handing their rows back (decision 0012): well
 * inside a 10 s grace period, so a frozen SMTP server never holds up a shutdown.
 */
export const STOP_DEADLINE_MS = 3_000;
const MAX_ERROR_LENGTH = 500;

/** Delay before the next attempt after `attempts` failures (1, 2, …). Mail is dropped only when refused for good (refusedForGood). */
export function retryDelayMs(attempts: number): number {
  return Math.min(RETRY_BASE_MS * 2 ** Math.max(0, attempts - 1), RETRY_CAP_MS);
}

/**
 * Whether the receiving server refused this message for good: a permanent (5xx) answer to its
 * recipient or to its content (RFC 5321 §4.2.1). A 5xx to the sender or to the login is this
 * service's configuration, which an operator can fix: that mail waits and is tried again.
 */
export function refusedForGood(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { responseCode, command } = error as { responseCode?: unknown; command?: unknown };
  return typeof responseCode === 'number' && responseCode >= 500 && responseCode < 600 && (command === 'RCPT TO' || command === 'DATA');
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
  /** Opens the sealed content of a row (decision 0012). */
  key: OutboxKey;
}

export interface MailWorkerOptions {
  pollMs: number;
  /** Sends in flight at once; the SMTP pool keeps as many connections. */
  concurrency?: number;
  stopDeadlineMs?: number;
}

/**
 * What readiness reports (features/health/probes.routes.ts): `noTransport` never polls by design
 * (mail waits in the outbox until SMTP_URL is set); `stuck` has not begun a round for longer than
 * a poll and a claim's lease, which bounds every round.
 */
export type MailWorkerState = 'polling' | 'stopped' | 'stuck' | 'noTransport';

/**
 * Runs `work` over `items`, at most `limit` at a time. An item's failure does not stop the others
 * or end the run early: it settles only when no work is in flight, then fails with the first
 * error. (Ending at the first failure would let the round hand back the claims of rows still being
 * sent, and the next round would send them again.)
 */
async function eachLimited<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const failures: unknown[] = [];
  const lane = async (): Promise<void> => {
    for (let item = items[next++]; item !== undefined; item = items[next++]) {
      try {
        await work(item);
      } catch (error) {
        failures.push(error);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  if (failures.length > 0) throw failures[0];
}

/** True when `promise` settles within `ms`. */
async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([promise.then(() => true), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Delivers the outbox (decisions 0009, 0012). Polls every `pollMs` and at once when nudged; claims
 * a batch of due rows in one statement, sends a few at a time, and marks each sent or schedules its
 * next attempt with exponential back-off. Everything it needs to resume is in the table, so a
 * restart, or another instance, picks up where it stopped. Delivery is at least once: a crash
 * between sending and marking sends again, with the same Message-ID; a database that is away at
 * the marking does not (`unmarked`).
 */
export class MailWorker {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = true;
  private closing = false;
  /** Clock time of start, then of each round's beginning. */
  private lastRoundAt = 0;
  /** Claimed rows not settled yet, with their claim: what a shutdown hands back. */
  private readonly claimed = new Map<string, number>();
  /**
   * Mail the SMTP server accepted whose row could not be marked sent (the database went away in
   * between), with when it went out: marked before anything else is claimed, and never sent again
   * by this process, however long the database stays away. At most a round's rows.
   */
  private readonly unmarked = new Map<string, number>();
  private readonly rounds = new Set<Promise<number>>();
  private readonly concurrency: number;
  private readonly stopDeadlineMs: number;
  private readonly pollMs: number;

  constructor(
    private readonly deps: MailWorkerDeps,
    /** Undefined when there is nowhere to deliver: mail then waits in the outbox. */
    readonly transport: MailTransport | undefined,
    options: MailWorkerOptions,
  ) {
    this.pollMs = options.pollMs;
    this.concurrency = options.concurrency ?? SMTP_CONNECTIONS;
    this.stopDeadlineMs = options.stopDeadlineMs ?? STOP_DEADLINE_MS;
  }

  start(): void {
    if (this.transport === undefined || !this.stopped) return;
    this.stopped = false;
    this.closing = false;
    this.lastRoundAt = this.deps.clock.now();
    this.schedule(0);
  }

  state(): MailWorkerState {
    if (this.transport === undefined) return 'noTransport';
    if (this.stopped) return 'stopped';
    return this.deps.clock.now() - this.lastRoundAt > this.pollMs + LEASE_MS ? 'stuck' : 'polling';
  }

  /**
   * No round running, and none due at once: the next begins at the next poll or nudge. What a test
   * waits for before it moves the clock, so that no round begins after the move.
   */
  get idle(): boolean {
    return this.running === undefined && !this.again;
  }

  /** Mail was just queued: deliver now rather than at the next poll. */
  nudge(): void {
    if (this.stopped) return;
    if (this.running !== undefined) this.again = true;
    else this.schedule(0);
  }

  /**
   * Stops polling and gives the sends in flight until the deadline. What is not sent by then goes
   * back to the outbox, due at once, so the next start or another instance sends it: nothing
   * acknowledged is lost, and a frozen SMTP server cannot hold the shutdown.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    this.closing = true;
    clearTimeout(this.timer);
    const settled = await settlesWithin(Promise.allSettled([this.running, ...this.rounds]), this.stopDeadlineMs);
    if (!settled) await this.handBack();
    try {
      await this.markUnmarked();
    } catch (error) {
      // Still no database: those rows go out again once their claims run out (at least once).
      this.deps.log.error({ err: error, mails: this.unmarked.size }, 'delivered mail could not be recorded as sent at shutdown');
    }
    await this.transport?.close({ force: !settled });
  }

  /** One round: claims due rows and attempts each once. Returns how many were claimed. */
  async runOnce(): Promise<number> {
    const round = this.round();
    this.rounds.add(round);
    try {
      return await round;
    } finally {
      this.rounds.delete(round);
    }
  }

  private async round(): Promise<number> {
    const transport = this.transport;
    if (transport === undefined) return 0;
    const { db, clock } = this.deps;
    const now = clock.now();
    this.lastRoundAt = now;
    // What went out but was not recorded first: until it is, nothing new is claimed (the round
    // fails, and the next poll tries again).
    await this.markUnmarked();
    const lease = now + LEASE_MS;
    const rows = await claimDue(db, { now, leaseUntil: lease, limit: BATCH_SIZE });
    for (const row of rows) this.claimed.set(row.id, lease);
    try {
      await eachLimited(rows, this.concurrency, async (row) => {
        // Closing: rows not started yet go back below rather than start a send now.
        if (this.closing) return;
        try {
          await this.deliver(transport, row, lease);
        } finally {
          this.claimed.delete(row.id);
        }
      });
    } finally {
      const unsent = rows.filter((row) => this.claimed.get(row.id) === lease).map((row) => row.id);
      for (const id of unsent) this.claimed.delete(id);
      await releaseClaims(db, unsent, lease);
    }
    return rows.length;
  }

  private async handBack(): Promise<void> {
    const byLease = new Map<number, string[]>();
    for (const [id, lease] of this.claimed) byLease.set(lease, [...(byLease.get(lease) ?? []), id]);
    this.claimed.clear();
    try {
      for (const [lease, ids] of byLease) await releaseClaims(this.deps.db, ids, lease);
      if (byLease.size > 0) this.deps.log.warn({ mails: [...byLease.values()].flat().length }, 'mail still sending at shutdown handed back to the outbox');
    } catch (error) {
      // Unreachable database: the claims run out on their own (LEASE_MS) and the rows go out then.
      this.deps.log.error({ err: error }, 'handing mail back to the outbox failed');
    }
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
      while (!this.closing && (await this.runOnce()) === BATCH_SIZE) {
        // A full batch: more may be due.
      }
    } catch (error) {
      // The rows stay as they were; the next poll retries. An outage is said once per poll at
      // warn, without a stack (decision 0011); anything else is a bug.
      if (isDatabaseUnavailable(error)) this.deps.log.warn({ reason: databaseReason(error) }, 'mail worker round failed: database unavailable');
      else this.deps.log.error({ err: error }, 'mail worker round failed');
    }
  }

  private async deliver(transport: MailTransport, row: OutboxRow, lease: number): Promise<void> {
    const { db, clock, log, key } = this.deps;
    let content: MailContent;
    try {
      content = openMail(key, { id: row.id, to: row.to_address }, row.sealed_content ?? '');
    } catch (error) {
      // Fails closed: kept and retried, so a corrected SECRET_KEY still delivers it.
      if (!(error instanceof SealedMailError)) throw error;
      await this.failed(row, lease, error, 'error');
      return;
    }
    try {
      await transport.send({ id: row.id, kind: row.kind, to: row.to_address, locale: row.locale, ...content });
    } catch (error) {
      await this.failed(row, lease, error);
      return;
    }
    const sentAt = clock.now();
    try {
      await markSent(db, row.id, sentAt);
    } catch (error) {
      // Delivered all the same: remembered, so that it is recorded rather than sent again once
      // the claim runs out.
      this.unmarked.set(row.id, sentAt);
      log.warn({ err: error, mailId: row.id, kind: row.kind }, 'mail delivered but not yet recorded as sent; will record it');
      return;
    }
    log.info({ mailId: row.id, kind: row.kind, transport: transport.name }, 'mail delivered');
  }

  private async markUnmarked(): Promise<void> {
    for (const [id, sentAt] of this.unmarked) {
      await markSent(this.deps.db, id, sentAt);
      this.unmarked.delete(id);
      this.deps.log.info({ mailId: id }, 'mail delivered earlier now recorded as sent');
    }
  }

  private async failed(row: OutboxRow, lease: number, error: unknown, level?: 'error'): Promise<void> {
    const attempts = row.attempts + 1;
    if (refusedForGood(error)) {
      const reason = describeError(error);
      await markBounced(this.deps.db, row.id, { lease, attempts, at: this.deps.clock.now(), error: reason });
      this.deps.log.warn({ mailId: row.id, kind: row.kind, attempts, error: reason }, 'mail refused for good by the receiving server; not sent again');
      return;
    }
    const delay = retryDelayMs(attempts);
    const reason = describeError(error);
    await markFailed(this.deps.db, row.id, { lease, attempts, nextAttemptAt: this.deps.clock.now() + delay, error: reason });
    const entry = { mailId: row.id, kind: row.kind, attempts, retryInMs: delay, error: reason };
    if (level === 'error') this.deps.log.error(entry, 'mail cannot be opened with this SECRET_KEY; kept, will retry');
    else if (attempts >= WARN_AFTER_ATTEMPTS) this.deps.log.warn(entry, 'mail still undelivered; will keep retrying');
    else this.deps.log.info(entry, 'mail delivery failed; will retry');
  }
}
