import type { RateRule } from '../../lib/rate-limit.js';

/**
 * Starting Google sign-in (decision 0019; spec §8 lists `rateLimitExeeded` for Google). Each start
 * writes a state row that lives ten minutes, so an unlimited flood from one address would fill the
 * table (ASVS V2.4.1). The limit is SSO start's: a whole office may sign in from one address.
 */
export const SOCIAL_AUTH_START_PER_IP: RateRule = { name: 'socialAuth:ip', limit: 300, windowMs: 15 * 60_000 };
