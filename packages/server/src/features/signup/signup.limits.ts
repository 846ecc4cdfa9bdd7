import type { RateRule } from '../../lib/rate-limit.js';

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;

/**
 * Sign-up's rate limits, in one place (decision 0009). Per client address they stop scripted
 * account creation and mail flooding from one source; per email they stop anyone from turning
 * "Click to resend" into a mail bomb against one inbox. Breaching one answers 429
 * rateLimitExeeded (spec §8).
 */
export const SIGNUP_PER_IP: RateRule = { name: 'signup:ip', limit: 10, windowMs: HOUR_MS };
/**
 * Per normalised email, whatever the address (decision 0014): bounds the mail one inbox can be
 * sent through sign-up from many addresses, and the pending sign-ups one email can collect. It
 * counts known and unknown emails alike, so the 429 says nothing about an account.
 */
export const SIGNUP_PER_EMAIL: RateRule = { name: 'signup:email', limit: 5, windowMs: HOUR_MS };
/**
 * Every resend of a verification mail ('Click to resend.', the resend after an unverified sign-in,
 * 'Send Another Link' of a superseded link; decision 0020) counts against the same two budgets,
 * so together they cannot mail one inbox, or serve one address, more often than one of them.
 */
export const RESEND_PER_EMAIL: RateRule = { name: 'resend:email', limit: 3, windowMs: 15 * MINUTE_MS };
export const RESEND_PER_IP: RateRule = { name: 'resend:ip', limit: 20, windowMs: HOUR_MS };
/**
 * 'Send Another Link' names no email, only a link: counted per link instead. A link reaches only
 * its own inbox and the fresh one goes there too, so this bounds what one link can send.
 */
export const RESEND_PER_LINK: RateRule = { name: 'resend:link', limit: 3, windowMs: 15 * MINUTE_MS };
