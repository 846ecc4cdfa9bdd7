import type { RateRule } from '../../lib/rate-limit.js';

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;

/**
 * Email change's rate limits (decision 0023). Per new address, requesting a change cannot be
 * turned into a mail bomb against someone else's inbox (only the newest link works anyway); per
 * client address both calls are bounded like reset's (decision 0010). The password asked again is
 * also counted by the sign-in lockout of the account's email.
 */
export const CHANGE_EMAIL_PER_NEW_EMAIL: RateRule = { name: 'changeEmail:newEmail', limit: 5, windowMs: HOUR_MS };
export const CHANGE_EMAIL_PER_IP: RateRule = { name: 'changeEmail:ip', limit: 30, windowMs: HOUR_MS };
export const VERIFY_NEW_EMAIL_PER_IP: RateRule = { name: 'verifyNewEmail:ip', limit: 30, windowMs: 15 * MINUTE_MS };
