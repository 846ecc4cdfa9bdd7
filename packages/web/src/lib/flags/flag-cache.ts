import type { Flags } from '@foyer/contract/core';
import { FLAG_CACHE_LIMITS } from '@foyer/contract/ofrep';

export interface CachedFlags {
  flags: Flags;
  /** The OFREP bulk answer's ETag, sent back as If-None-Match; absent for the page's inline flags. */
  etag?: string;
  /** When these values were last confirmed by the service (epoch ms). */
  fetchedAt: number;
}

export type FlagCacheLimits = Pick<typeof FLAG_CACHE_LIMITS, 'staleMs' | 'maxAgeMs' | 'maxEntries'>;

/**
 * Spec §9's flag cache (decision 0024), one entry per evaluation context: stale after 60 s (still
 * served while it is fetched again), dropped once 4 hours old, and at most 10 entries, the least
 * recently used one leaving first. It lives in the page's memory only: nothing is written to
 * the visitor's storage.
 */
export class FlagCache {
  private readonly entries = new Map<string, CachedFlags>();

  constructor(private readonly limits: FlagCacheLimits = FLAG_CACHE_LIMITS) {}

  /** The entry while it is younger than the maximum age; an older one is dropped. */
  get(key: string, now: number): CachedFlags | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    this.entries.delete(key);
    if (now - entry.fetchedAt >= this.limits.maxAgeMs) return undefined;
    // Re-inserted: a Map keeps insertion order, so the first key is the least recently used.
    this.entries.set(key, entry);
    return entry;
  }

  isStale(entry: CachedFlags, now: number): boolean {
    return now - entry.fetchedAt >= this.limits.staleMs;
  }

  /** When the entry turns stale (epoch ms). */
  staleAt(entry: CachedFlags): number {
    return entry.fetchedAt + this.limits.staleMs;
  }

  put(key: string, entry: CachedFlags): void {
    this.entries.delete(key);
    this.entries.set(key, entry);
    while (this.entries.size > this.limits.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.entries.delete(oldest);
    }
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }

  keys(): string[] {
    return [...this.entries.keys()];
  }
}
