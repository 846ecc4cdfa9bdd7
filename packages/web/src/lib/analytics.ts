import { ANALYTICS_COOKIE, ANALYTICS_LIMITS, FORUM_ANALYTICS } from '@foyer/contract/community';
import type { RuntimeConfig } from '@foyer/contract/core';
import { readOwnCookie, writeCookie } from './cookies';

/**
 * Analytics (spec §3, §9; decision 0021): events go to a Segment-compatible batch endpoint
 * (`POST { batch: [...] }`, which Segment, RudderStack, Jitsu and PostHog accept), configured on
 * the server as ANALYTICS_URL; without it every call here does nothing. It is background
 * traffic: nothing here throws, and no screen waits for it longer than the spec's 300 ms
 * callback timeout (`beforeLeaving`). Loaded only by the screens that record events, never on the
 * sign-in page's first load.
 *
 * Only the page's path is sent, never its query or the full address: the forum's `sso` and
 * `sig`, and emailed tokens, travel in addresses.
 */

export type EventProperties = Readonly<Record<string, string | number | boolean>>;

export interface TrackMessage {
  type: 'track';
  event: string;
  properties: EventProperties;
  anonymousId: string;
  messageId: string;
  timestamp: string;
  context: { page: { path: string }; locale: string };
}

export interface AnalyticsOptions {
  endpoint: string;
  anonymousId: string;
  /** The pause before retry `attempt` (0-based); by default exponential with spec §9's jitter. */
  retryDelayMs?: (attempt: number) => number;
}

const encoder = new TextEncoder();
const byteLength = (value: unknown) => encoder.encode(JSON.stringify(value)).length;

/** Exponential from half a second, capped at 30 s, plus spec §9's random jitter of up to 5 s. */
function defaultRetryDelay(attempt: number): number {
  return Math.min(500 * 2 ** attempt, 30_000) + Math.random() * ANALYTICS_LIMITS.retryJitterMs;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The queue and its sender; the browser glue (cookie, config, page events) is below. */
export class AnalyticsClient {
  private readonly queue: TrackMessage[] = [];
  private readonly inFlight = new Set<Promise<void>>();
  private scheduled = false;
  private readonly retryDelay: (attempt: number) => number;

  constructor(private readonly options: AnalyticsOptions) {
    this.retryDelay = options.retryDelayMs ?? defaultRetryDelay;
  }

  track(event: string, properties: EventProperties = {}): void {
    const message: TrackMessage = {
      type: 'track',
      event,
      properties,
      anonymousId: this.options.anonymousId,
      messageId: crypto.randomUUID(),
      timestamp: new Date().toISOString(),
      context: { page: { path: window.location.pathname }, locale: navigator.language },
    };
    // Spec §9: an event over 500 KB is dropped rather than sent.
    if (byteLength(message) > ANALYTICS_LIMITS.maxEventBytes) return;
    this.queue.push(message);
    if (this.queue.length >= ANALYTICS_LIMITS.batchSize) {
      this.flush();
      return;
    }
    // Events recorded in the same turn go out together.
    if (!this.scheduled) {
      this.scheduled = true;
      queueMicrotask(() => this.flush());
    }
  }

  /** Sends everything queued now, in batches of spec §9's size and byte limits. */
  flush(): void {
    this.scheduled = false;
    while (this.queue.length > 0) {
      const batch = this.nextBatch();
      const sending = this.send(batch).finally(() => this.inFlight.delete(sending));
      this.inFlight.add(sending);
    }
  }

  /** Resolves once what is queued or in flight has gone out, or after `timeoutMs`, whichever first. */
  settled(timeoutMs: number = ANALYTICS_LIMITS.callbackTimeoutMs): Promise<void> {
    this.flush();
    const all = Promise.allSettled([...this.inFlight]).then(() => undefined);
    return Promise.race([all, sleep(timeoutMs)]);
  }

  /**
   * Up to 10 events and 64 KB (spec §9). An event of its own over 64 KB (it is under 500 KB)
   * goes alone: the batch limit decides how events are grouped, the event limit which are sent.
   */
  private nextBatch(): TrackMessage[] {
    const batch: TrackMessage[] = [];
    let bytes = byteLength({ batch: [], sentAt: new Date().toISOString() });
    while (this.queue.length > 0 && batch.length < ANALYTICS_LIMITS.batchSize) {
      const next = this.queue[0];
      if (next === undefined) break;
      const size = byteLength(next) + 1;
      if (batch.length > 0 && bytes + size > ANALYTICS_LIMITS.maxBatchBytes) break;
      batch.push(next);
      bytes += size;
      this.queue.shift();
    }
    return batch;
  }

  private async send(batch: TrackMessage[]): Promise<void> {
    for (let attempt = 0; attempt <= ANALYTICS_LIMITS.maxRetries; attempt += 1) {
      if (attempt > 0) await sleep(this.retryDelay(attempt - 1));
      const body = JSON.stringify({ batch, sentAt: new Date().toISOString() });
      try {
        const response = await fetch(this.options.endpoint, {
          method: 'POST',
          // text/plain keeps the request "simple" for CORS: no preflight, as Segment's own
          // library does; every batch endpoint named above reads the body as JSON regardless.
          headers: { 'Content-Type': 'text/plain' },
          body,
          credentials: 'omit',
          // Lets the last batch finish after the page has gone to the forum; browsers cap such
          // requests at 64 KB, which is spec §9's batch limit.
          keepalive: encoder.encode(body).length <= ANALYTICS_LIMITS.maxBatchBytes,
          signal: AbortSignal.timeout(ANALYTICS_LIMITS.requestTimeoutMs),
        });
        if (response.ok) return;
        // A refusal other than a rate limit will be refused again: the batch is dropped.
        if (response.status < 500 && response.status !== 429) return;
      } catch {
        // The network or the 5 s timeout: tried again below.
      }
    }
  }
}

let client: AnalyticsClient | null | undefined;

/** A new visitor id when there is none: random, kept 365 days (spec §9) in a script-readable cookie. */
function anonymousId(config: RuntimeConfig): string {
  const stored = readOwnCookie(config, ANALYTICS_COOKIE)?.replace(/^"|"$/g, '');
  const id = stored !== undefined && /^[\w-]{8,64}$/.test(stored) ? stored : crypto.randomUUID();
  writeCookie(config, ANALYTICS_COOKIE, id, ANALYTICS_LIMITS.cookieDays * 24 * 60 * 60);
  return id;
}

function analytics(config: RuntimeConfig): AnalyticsClient | null {
  if (client !== undefined) return client;
  const endpoint = config.analyticsUrl;
  if (endpoint === undefined) return (client = null);
  try {
    const created = new AnalyticsClient({ endpoint, anonymousId: anonymousId(config) });
    // Whatever is still queued when the page goes away is sent with keepalive.
    window.addEventListener('pagehide', () => created.flush());
    client = created;
  } catch {
    client = null;
  }
  return client;
}

/** Spec §3's two named events, with the caller's properties (the forum's category and object). */
export function pageLoaded(config: RuntimeConfig, properties: EventProperties = {}): void {
  track(config, FORUM_ANALYTICS.events.loaded, properties);
}

export function loggedIn(config: RuntimeConfig, properties: EventProperties = {}): void {
  track(config, FORUM_ANALYTICS.events.loggedIn, properties);
}

export function track(config: RuntimeConfig, event: string, properties: EventProperties = {}): void {
  try {
    analytics(config)?.track(event, properties);
  } catch {
    // Analytics never stands in a screen's way.
  }
}

/** Before a full-page navigation: waits for the events to go out, 300 ms at most (spec §9). */
export function beforeLeaving(config: RuntimeConfig): Promise<void> {
  return analytics(config)?.settled() ?? Promise.resolve();
}

/** For tests: forgets the client, so the next call reads the configuration again. */
export function resetAnalyticsForTests(): void {
  client = undefined;
}
