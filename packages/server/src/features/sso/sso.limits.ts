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

/**
 * What identity providers send back (the SAML assertion consumer, the OIDC callback), per client
 * address, counted before the body is read: each refused answer writes an audit row and a SAML
 * response takes a place on the SAML threads' queue, so an unlimited flood of forged answers would
 * fill the table (ASVS V2.4.1) and keep real sign-ins waiting. Twice the start's limit: a browser
 * brings one answer per start, and an organisation whose provider starts sign-ins itself sends
 * answers no start preceded.
 */
export const SSO_ANSWER_PER_IP: RateRule = { name: 'ssoAnswer:ip', limit: 600, windowMs: WINDOW_MS };
