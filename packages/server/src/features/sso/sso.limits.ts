import type { RateRule } from '../../lib/rate-limit.js';

const WINDOW_MS = 15 * 60_000;

/**
 * The SSO start call's rate limits (decisions 0010 and 0022; spec §8 declares `rateLimitExeeded`
 * for it). Each start writes a request row that lives ten minutes, so an unlimited flood would
 * fill the table (ASVS V2.4.1). Per client address the limit is three times sign-in's: SSO is how
 * a whole office signs in, often from one address. Per email it bounds how often one person's
 * start can be repeated; a person retrying a few times is far below it.
 */
export const SSO_START_PER_IP: RateRule = { name: 'ssoStart:ip', limit: 300, windowMs: WINDOW_MS };
export const SSO_START_PER_EMAIL: RateRule = { name: 'ssoStart:email', limit: 10, windowMs: WINDOW_MS };
