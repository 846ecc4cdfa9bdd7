/**
 * The forum sign-in's and analytics' shared values (decision 0021). A module of its own, outside
 * the sign-in page's first-load chunk (packages/web/vite.config.ts): only the screens behind the
 * router use these.
 */

/**
 * Spec §2's device hand-off screen, whose path the spec leaves out: a native client opens it with
 * `deviceId` and a one-time `otter` to carry its account into the browser.
 */
export const DEVICE_HAND_OFF_PATH = '/device-hand-off';

/**
 * Spec §3: the analytics visitor id cookie (kept 365 days, spec §9), under the name Segment's own
 * library uses, so a site that also runs it shares one id. Spec §3's `_{env}` suffix applies.
 */
export const ANALYTICS_COOKIE = 'ajs_anonymous_id';

/**
 * Spec §9: the analytics client's limits. `callbackTimeoutMs` is the spec's "default timeout
 * 300 ms": the longest a screen waits for its events to go out before it leaves.
 */
export const ANALYTICS_LIMITS = {
  batchSize: 10,
  maxRetries: 10,
  retryJitterMs: 5000,
  requestTimeoutMs: 5000,
  maxEventBytes: 500 * 1024,
  maxBatchBytes: 64 * 1024,
  cookieDays: 365,
  callbackTimeoutMs: 300,
} as const;

/** Spec §3, §4: the forum's analytics events, each with category Discourse and object Community SSO. */
export const FORUM_ANALYTICS = {
  properties: { category: 'Discourse', object: 'Community SSO' },
  events: { loaded: 'Loaded', loggedIn: 'Logged In', termsAgreed: 'Terms Agreed', termsCancelled: 'Terms Cancelled' },
} as const;
