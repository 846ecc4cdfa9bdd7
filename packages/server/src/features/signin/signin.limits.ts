import type { RateRule } from '../../lib/rate-limit.js';

const WINDOW_MS = 15 * 60_000;

/**
 * Sign-in's rate limits (decision 0010), checked before any password work. Per client address
 * they bound credential stuffing and password spraying from one source across many emails (the
 * per-email lockout cannot see those). Per email the limit stays well above the lockout threshold
 * (10): in the normal case a person sees the lock's text, and the limit only caps how much argon2
 * work the requests for one locked email can cost.
 */
export const SIGNIN_PER_IP: RateRule = { name: 'signin:ip', limit: 100, windowMs: WINDOW_MS };
export const SIGNIN_PER_EMAIL: RateRule = { name: 'signin:email', limit: 30, windowMs: WINDOW_MS };

/**
 * The per-email rule for a lockout threshold: never below three times the threshold, so raising
 * LOCKOUT_THRESHOLD can never put the limit's answer in front of the lock's.
 */
export function signinPerEmail(lockoutThreshold: number): RateRule {
  return { ...SIGNIN_PER_EMAIL, limit: Math.max(SIGNIN_PER_EMAIL.limit, 3 * lockoutThreshold) };
}
