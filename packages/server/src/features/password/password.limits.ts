import type { RateRule } from '../../lib/rate-limit.js';

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;

/**
 * Forgot and reset password's rate limits (decision 0010). Breaching one answers 429
 * rateLimitExeeded with Retry-After (spec §8).
 *
 * Per email, forgot-password stops anyone from turning the form into a mail bomb against one
 * inbox (five links an hour is more than a person needs: only the newest works anyway); per client
 * address it curbs one source probing many emails. Reset is limited per address, and per token so
 * that a stolen link cannot serve as an unlimited oracle on the account's previous passwords
 * (recentPassword answers without spending the token).
 */
export const FORGOT_PER_EMAIL: RateRule = { name: 'forgot:email', limit: 5, windowMs: HOUR_MS };
export const FORGOT_PER_IP: RateRule = { name: 'forgot:ip', limit: 30, windowMs: HOUR_MS };
export const RESET_PER_IP: RateRule = { name: 'reset:ip', limit: 30, windowMs: 15 * MINUTE_MS };
export const RESET_PER_TOKEN: RateRule = { name: 'reset:token', limit: 10, windowMs: HOUR_MS };
