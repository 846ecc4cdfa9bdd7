import { FLAG_DEFAULTS, type FlagName } from './flags.js';

/*
 * Feature flags over OFREP, the OpenFeature Remote Evaluation Protocol (decision 0024). A module
 * of its own, which core.ts does not re-export (the page imports `@foyer/contract/ofrep`): core
 * and flags.ts are part of the sign-in page's first load, and what only the service and the
 * later flag refresher use must not land there.
 */

/** Every flag's name, in the spec's order (§9). */
export const FLAG_NAMES = /* @__PURE__ */ Object.keys(FLAG_DEFAULTS) as FlagName[];

export function isFlagName(name: string): name is FlagName {
  return Object.hasOwn(FLAG_DEFAULTS, name);
}

/**
 * Spec §9: how long the page keeps flag values it fetched. Stale after 60 s (then fetched again),
 * dropped after 4 hours, at most 10 cached evaluations, and no refreshing once the page has been
 * hidden for 20 seconds.
 */
export const FLAG_CACHE_LIMITS = {
  staleMs: 60_000,
  maxAgeMs: 4 * 60 * 60 * 1000,
  maxEntries: 10,
  hiddenStopMs: 20_000,
} as const;

/** OFREP v1's evaluation paths: the service serves them, and asks them of FLAGS_OFREP_URL. */
export const OFREP_PATHS = {
  bulk: '/ofrep/v1/evaluate/flags',
  single: '/ofrep/v1/evaluate/flags/:key',
} as const;
