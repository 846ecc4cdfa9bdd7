import { FLAG_DEFAULTS, type FlagName, type Flags } from '@foyer/contract/core';
import { FLAG_CACHE_LIMITS, FLAG_NAMES, OFREP_PATHS } from '@foyer/contract/ofrep';
import { FlagCache, type CachedFlags } from './flag-cache';

/**
 * Keeps the page's flags fresh after its first paint (decision 0024), with a small OFREP client
 * of its own: the OpenFeature web SDK with its OFREP provider is 13.8 KB gzipped (50 KB
 * minified) for what is one bulk request, and follows other cache rules than spec §9. It asks the service's `POST /ofrep/v1/evaluate/flags` with the last ETag when the
 * values turn stale (spec §9: after 60 s), stops asking once the page has been hidden for 20 s
 * and asks again as soon as it is visible, keeps a value at most 4 hours (then the spec's
 * defaults answer, the floor) and honours a 429's Retry-After.
 */

export interface RefresherOptions {
  /** The flags the page was served with (its inline runtime config). */
  initial: Flags;
  /** The evaluation context: the environment only, nothing about the visitor. */
  context: Record<string, string>;
  /** Told of every change of value. */
  onChange: (flags: Flags) => void;
  /** Where the OFREP paths live; the page's own origin by default. */
  baseUrl?: string;
  limits?: typeof FLAG_CACHE_LIMITS;
  /** Shared by the refreshers of one page (one entry per context). */
  cache?: FlagCache;
  document?: Document;
}

/** A request that takes longer is given up and counted as a failure. */
const REQUEST_TIMEOUT_MS = 10_000;

const pageCache = new FlagCache();

type Answer = { kind: 'fresh'; flags: Flags; etag?: string } | { kind: 'unchanged' } | { kind: 'retryAfter'; ms: number } | { kind: 'failed' };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The flags of a bulk answer over the spec's defaults: unknown keys, errors and wrong types are left out. */
export function flagsOf(body: unknown): Flags | undefined {
  if (!isRecord(body) || !Array.isArray(body.flags)) return undefined;
  const flags: Record<string, boolean | number> = { ...FLAG_DEFAULTS };
  for (const entry of body.flags as unknown[]) {
    if (!isRecord(entry) || typeof entry.key !== 'string' || !FLAG_NAMES.includes(entry.key as FlagName)) continue;
    const name = entry.key as FlagName;
    if ('errorCode' in entry || typeof entry.value !== typeof FLAG_DEFAULTS[name]) continue;
    flags[name] = entry.value as boolean | number;
  }
  return flags as Flags;
}

/** Retry-After in seconds or as an HTTP date; at least a second. */
export function retryAfterMs(header: string | null, now: number): number | undefined {
  if (header === null) return undefined;
  const seconds = Number(header);
  const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(header) - now;
  return Number.isFinite(ms) ? Math.max(1000, ms) : undefined;
}

async function askService(url: string, context: Record<string, string>, etag: string | undefined, signal: AbortSignal): Promise<Answer> {
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...(etag === undefined ? {} : { 'If-None-Match': etag }) },
      body: JSON.stringify({ context }),
      signal,
    });
    if (response.status === 304) return { kind: 'unchanged' };
    if (response.status === 429) {
      const ms = retryAfterMs(response.headers.get('Retry-After'), Date.now());
      return ms === undefined ? { kind: 'failed' } : { kind: 'retryAfter', ms };
    }
    if (response.status !== 200) return { kind: 'failed' };
    const flags = flagsOf(await response.json());
    if (flags === undefined) return { kind: 'failed' };
    return { kind: 'fresh', flags, ...(response.headers.get('ETag') === null ? {} : { etag: response.headers.get('ETag') as string }) };
  } catch {
    return { kind: 'failed' };
  }
}

const sameFlags = (a: Flags, b: Flags) => FLAG_NAMES.every((name) => a[name] === b[name]);

/** Starts refreshing; the function returned stops it (timers, listener, any request in flight). */
export function startFlagRefresher(options: RefresherOptions): () => void {
  const limits = options.limits ?? FLAG_CACHE_LIMITS;
  const cache = options.cache ?? pageCache;
  const doc = options.document ?? document;
  const url = `${options.baseUrl ?? ''}${OFREP_PATHS.bulk}`;
  const key = `${url} ${JSON.stringify(options.context)}`;

  let shown = options.initial;
  let pollTimer: ReturnType<typeof setTimeout> | undefined;
  let hiddenTimer: ReturnType<typeof setTimeout> | undefined;
  let paused = false;
  let stopped = false;
  let inFlight: AbortController | undefined;
  /** Set by a 429: no request before then. */
  let notBefore = 0;

  const show = (flags: Flags) => {
    if (sameFlags(flags, shown)) return;
    shown = flags;
    options.onChange(flags);
  };

  // The inline flags were evaluated when the page was served: they start the entry, unless a
  // fresher one of the same context is already held.
  if (cache.get(key, Date.now()) === undefined) cache.put(key, { flags: options.initial, fetchedAt: Date.now() });

  const schedule = (at: number) => {
    clearTimeout(pollTimer);
    pollTimer = setTimeout(() => void refresh(), Math.max(0, at - Date.now()));
  };

  const refresh = async (): Promise<void> => {
    if (stopped || paused || inFlight !== undefined) return;
    const now = Date.now();
    if (now < notBefore) return schedule(notBefore);
    const entry: CachedFlags | undefined = cache.get(key, now);
    if (entry !== undefined && !cache.isStale(entry, now)) return schedule(cache.staleAt(entry));

    const controller = new AbortController();
    inFlight = controller;
    const deadline = setTimeout(() => controller.abort(), REQUEST_TIMEOUT_MS);
    const answer = await askService(url, options.context, entry?.etag, controller.signal);
    clearTimeout(deadline);
    inFlight = undefined;
    if (stopped) return;

    const at = Date.now();
    if (answer.kind === 'fresh') {
      cache.put(key, { flags: answer.flags, ...(answer.etag === undefined ? {} : { etag: answer.etag }), fetchedAt: at });
      show(answer.flags);
    } else if (answer.kind === 'unchanged' && entry !== undefined) {
      cache.put(key, { ...entry, fetchedAt: at });
    } else {
      if (answer.kind === 'retryAfter') notBefore = at + answer.ms;
      // Still failing at 4 hours: the value is too old to trust; the spec's defaults answer.
      if (cache.get(key, at) === undefined) show({ ...FLAG_DEFAULTS });
    }
    // Fresh, confirmed or failed: the next question is one stale period away (never a hot loop).
    schedule(Math.max(notBefore, at + limits.staleMs));
  };

  const onVisibility = () => {
    if (doc.visibilityState === 'hidden') {
      // Spec §9: refreshing goes on for 20 s after the page is hidden, then stops.
      hiddenTimer ??= setTimeout(() => {
        paused = true;
        clearTimeout(pollTimer);
        inFlight?.abort();
      }, limits.hiddenStopMs);
      return;
    }
    clearTimeout(hiddenTimer);
    hiddenTimer = undefined;
    if (paused) {
      paused = false;
      void refresh();
    }
  };

  doc.addEventListener('visibilitychange', onVisibility);
  onVisibility();
  const first = cache.get(key, Date.now());
  schedule(first === undefined ? Date.now() : cache.staleAt(first));

  return () => {
    stopped = true;
    clearTimeout(pollTimer);
    clearTimeout(hiddenTimer);
    inFlight?.abort();
    doc.removeEventListener('visibilitychange', onVisibility);
  };
}
