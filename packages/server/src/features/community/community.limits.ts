import type { RateRule } from '../../lib/rate-limit.js';

/**
 * `community/discourseSso` per client address (decision 0021), counted before the payload is
 * checked: every refused payload writes an audit row, whoever sends it, so an unlimited flood of
 * forged ones would fill the table (ASVS V2.4.1). The start calls' limit: a person signs in to the
 * forum a few times a day, at most two calls each (the app's device token, then the browser's
 * session), and a whole office may do it from one address.
 */
export const DISCOURSE_SSO_PER_IP: RateRule = { name: 'discourseSso:ip', limit: 300, windowMs: 15 * 60_000 };
