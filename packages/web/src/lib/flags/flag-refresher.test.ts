import { FLAG_DEFAULTS, type Flags } from '@foyer/contract/core';
import { FLAG_CACHE_LIMITS, OFREP_PATHS } from '@foyer/contract/ofrep';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { json, stubFetch, type RecordedCall } from '../../test/fetch-stub';
import { FlagCache } from './flag-cache';
import { flagsOf, retryAfterMs, startFlagRefresher } from './flag-refresher';

/**
 * Spec §9's limits on the page's flag cache (decision 0024), on fake timers: stale after 60 s,
 * kept at most 4 hours, at most 10 entries, and refreshing stopped 20 s after the page is hidden.
 */

const SECOND = 1000;
const { staleMs, maxAgeMs, hiddenStopMs } = FLAG_CACHE_LIMITS;
const BULK = `POST ${OFREP_PATHS.bulk}`;

/** The service's side of the OFREP bulk evaluation: its values, an ETag, 304 for the same tag. */
function flagService(initial: Partial<Flags> = {}) {
  const service = {
    flags: { ...FLAG_DEFAULTS, ...initial } as Flags,
    failWith: undefined as Response | undefined,
    calls: [] as RecordedCall[],
  };
  const etag = () => `"${JSON.stringify(service.flags).length}-${service.flags['discourse-sso']}-${service.flags['requests-version']}"`;
  service.calls = stubFetch({
    [BULK]: (call) => {
      if (service.failWith !== undefined) return service.failWith.clone();
      if (call.headers.get('If-None-Match') === etag()) return new Response(null, { status: 304, headers: { ETag: etag() } });
      const flags = Object.entries(service.flags).map(([key, value]) => ({ key, value, reason: 'STATIC' }));
      const response = json(200, { flags });
      response.headers.set('ETag', etag());
      return response;
    },
  });
  return service;
}

let visibility: DocumentVisibilityState = 'visible';
function setVisibility(state: DocumentVisibilityState) {
  visibility = state;
  document.dispatchEvent(new Event('visibilitychange'));
}

describe('the flag refresher', () => {
  let stop: (() => void) | undefined;
  let changes: Flags[];

  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    vi.setSystemTime(Date.UTC(2030, 0, 15, 9, 0, 0));
    visibility = 'visible';
    Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => visibility });
    changes = [];
  });
  afterEach(() => {
    stop?.();
    stop = undefined;
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  const start = (initial: Partial<Flags> = {}) => {
    stop = startFlagRefresher({
      initial: { ...FLAG_DEFAULTS, ...initial },
      context: { environment: 'test' },
      onChange: (flags) => changes.push(flags),
      cache: new FlagCache(),
    });
  };

  it('asks nothing while the inline flags are fresh, then every 60 s with the ETag; a change reaches the page', async () => {
    const service = flagService();
    start();
    await vi.advanceTimersByTimeAsync(staleMs - 1);
    expect(service.calls).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(service.calls).toHaveLength(1);
    expect(service.calls[0]?.body).toEqual({ context: { environment: 'test' } });
    expect(service.calls[0]?.headers.get('If-None-Match')).toBeNull();
    expect(changes).toEqual([]);

    service.flags = { ...service.flags, 'discourse-sso': false };
    await vi.advanceTimersByTimeAsync(staleMs);
    expect(service.calls).toHaveLength(2);
    expect(service.calls[1]?.headers.get('If-None-Match')).toMatch(/true/);
    expect(changes.at(-1)?.['discourse-sso']).toBe(false);
  });

  it('keeps the values on a 304 and counts the 60 s again from it', async () => {
    const service = flagService();
    start();
    await vi.advanceTimersByTimeAsync(staleMs); // 200, with an ETag
    await vi.advanceTimersByTimeAsync(staleMs); // 304
    expect(service.calls).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(staleMs - 1);
    expect(service.calls).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(service.calls).toHaveLength(3);
    expect(changes).toEqual([]);
  });

  it('goes on for 20 s after the page is hidden, then stops, and asks at once when it is shown again', async () => {
    const service = flagService();
    start();
    await vi.advanceTimersByTimeAsync(50 * SECOND);
    setVisibility('hidden');
    await vi.advanceTimersByTimeAsync(10 * SECOND); // 60 s: stale, 10 s hidden: still asks
    expect(service.calls).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(hiddenStopMs - 10 * SECOND); // 20 s hidden: stops
    await vi.advanceTimersByTimeAsync(10 * 60 * SECOND);
    expect(service.calls).toHaveLength(1);

    service.flags = { ...service.flags, 'ai-alpha': true };
    setVisibility('visible');
    await vi.advanceTimersByTimeAsync(0);
    expect(service.calls).toHaveLength(2);
    expect(changes.at(-1)?.['ai-alpha']).toBe(true);
    await vi.advanceTimersByTimeAsync(staleMs);
    expect(service.calls).toHaveLength(3);
  });

  it('does not stop for a page hidden less than 20 s', async () => {
    const service = flagService();
    start();
    setVisibility('hidden');
    await vi.advanceTimersByTimeAsync(hiddenStopMs - 1);
    setVisibility('visible');
    await vi.advanceTimersByTimeAsync(staleMs - hiddenStopMs + 1);
    expect(service.calls).toHaveLength(1);
    // Shown before it turned stale: no extra request on showing.
    setVisibility('hidden');
    setVisibility('visible');
    await vi.advanceTimersByTimeAsync(0);
    expect(service.calls).toHaveLength(1);
  });

  it('keeps values at most 4 hours while the service fails, then the spec defaults answer', { timeout: 30_000 }, async () => {
    const service = flagService();
    service.failWith = json(500, { errorDetails: 'down' });
    start({ 'discourse-sso': false, 'requests-version': 2 });
    await vi.advanceTimersByTimeAsync(maxAgeMs - staleMs);
    expect(changes).toEqual([]);
    expect(service.calls.length).toBe(maxAgeMs / staleMs - 1);
    await vi.advanceTimersByTimeAsync(staleMs);
    expect(changes).toEqual([FLAG_DEFAULTS]);
    // Once the service answers again, its values are back.
    service.failWith = undefined;
    service.flags = { ...service.flags, 'discourse-sso': false };
    await vi.advanceTimersByTimeAsync(staleMs);
    expect(changes.at(-1)?.['discourse-sso']).toBe(false);
  });

  it('honours a 429 and its Retry-After', async () => {
    const service = flagService();
    service.failWith = new Response(null, { status: 429, headers: { 'Retry-After': '300' } });
    start();
    await vi.advanceTimersByTimeAsync(staleMs);
    expect(service.calls).toHaveLength(1);
    service.failWith = undefined;
    await vi.advanceTimersByTimeAsync(300 * SECOND - 1);
    expect(service.calls).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(service.calls).toHaveLength(2);
  });

  it('asks nothing once stopped', async () => {
    const service = flagService();
    start();
    stop?.();
    await vi.advanceTimersByTimeAsync(10 * staleMs);
    expect(service.calls).toHaveLength(0);
  });
});

describe('the flag cache', () => {
  it('holds at most 10 entries, the least recently used leaving first', () => {
    const cache = new FlagCache();
    for (let i = 0; i < 10; i++) cache.put(`context-${i}`, { flags: { ...FLAG_DEFAULTS }, fetchedAt: 0 });
    expect(cache.get('context-0', 1)).toBeDefined(); // used: now the most recent
    cache.put('context-10', { flags: { ...FLAG_DEFAULTS }, fetchedAt: 0 });
    expect(cache.size).toBe(FLAG_CACHE_LIMITS.maxEntries);
    expect(cache.get('context-1', 1)).toBeUndefined();
    expect(cache.get('context-0', 1)).toBeDefined();
    expect(cache.get('context-10', 1)).toBeDefined();
  });

  it('is stale after 60 s and gone at 4 hours', () => {
    const cache = new FlagCache();
    const entry = { flags: { ...FLAG_DEFAULTS }, fetchedAt: 1000 };
    cache.put('page', entry);
    expect(cache.isStale(entry, 1000 + staleMs - 1)).toBe(false);
    expect(cache.isStale(entry, 1000 + staleMs)).toBe(true);
    expect(cache.get('page', 1000 + maxAgeMs - 1)).toBe(entry);
    expect(cache.get('page', 1000 + maxAgeMs)).toBeUndefined();
    expect(cache.size).toBe(0);
  });
});

describe('reading OFREP answers', () => {
  it('takes known flags of the right type over the defaults, and nothing else', () => {
    const flags = flagsOf({
      flags: [
        { key: 'discourse-sso', value: false, reason: 'STATIC' },
        { key: 'requests-version', value: 'two' },
        { key: 'ai-alpha', errorCode: 'GENERAL' },
        { key: 'admin-mode', value: true },
      ],
    });
    expect(flags).toEqual({ ...FLAG_DEFAULTS, 'discourse-sso': false });
    expect(flagsOf({ errorCode: 'PARSE_ERROR' })).toBeUndefined();
  });

  it('reads Retry-After in seconds or as a date', () => {
    const now = Date.UTC(2030, 0, 1);
    expect(retryAfterMs('120', now)).toBe(120_000);
    expect(retryAfterMs(new Date(now + 30_000).toUTCString(), now)).toBe(30_000);
    expect(retryAfterMs('soon', now)).toBeUndefined();
    expect(retryAfterMs(null, now)).toBeUndefined();
  });
});
