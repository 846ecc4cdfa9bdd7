import { APP_ROUTES, ROUTES } from './routes.js';

/**
 * Uncaught errors of the page, reported to the service (decision 0026). Plain values and
 * functions without zod: the page scrubs with the same rules the service applies again.
 */

/** The longest message and stack a report may carry (the page cuts them to these). */
export const CLIENT_ERROR_MAX_MESSAGE = 1000;
export const CLIENT_ERROR_MAX_STACK = 8000;
/** A page's reports stop after this many, so an error in a render loop sends a handful, not thousands. */
export const CLIENT_ERROR_MAX_PER_PAGE = 5;

/** The route a report names: a template of spec §2 (never the visited path, which may hold a token), or `unknown`. */
export const CLIENT_ERROR_ROUTES = [...Object.values(ROUTES), ...Object.values(APP_ROUTES), 'unknown'] as const;
export type ClientErrorRoute = (typeof CLIENT_ERROR_ROUTES)[number];

/** The template of a visited path: `/reset-password/abc…` is `/reset-password/:token`. */
export function clientErrorRoute(pathname: string): ClientErrorRoute {
  const path = pathname.length > 1 ? pathname.replace(/\/+$/, '') : pathname;
  for (const template of CLIENT_ERROR_ROUTES) {
    const pattern = new RegExp(`^${template.replace(/:[A-Za-z]+/g, '[^/]+')}$`);
    if (pattern.test(path)) return template;
  }
  return 'unknown';
}

/** Path segments whose next segment is a secret from a link (spec §2, §7). */
const TOKEN_PARENTS = 'reset-password|verify-email|verify-new-email|setup-account|ssol|fields|check';

const SCRUBS: ReadonlyArray<readonly [RegExp, string]> = [
  // Query strings and fragments with values: sso payloads, codes, states, transfer tokens.
  [/([?#&])[\w.%[\]-]+=[^\s"'`<>)]*/g, '$1[query]'],
  // Anything shaped like an email address.
  [/[\w.!#$%&'*+/=?^`{|}~-]+@[\w-]+(?:\.[\w-]+)+/g, '[email]'],
  // Credentials written as name and value: `password=…`, `"hashPassword":"…"`, `Bearer …`.
  [/\bBearer\s+\S+/gi, 'Bearer [redacted]'],
  [/((?:hash)?pass(?:word)?|pwd|secret|token|otter|authorization|cookie)(["']?\s*[:=]\s*["']?)[^\s"'&,;})]+/gi, '$1$2[redacted]'],
  // The secret segment of a link's path, however short.
  [new RegExp(`(/(?:${TOKEN_PARENTS})/)[^/\\s?#"'\`<>)]+`, 'g'), '$1[token]'],
  // Long base64url or hex runs: tokens, session ids, password digests, JWT parts.
  [/(?<![\w-])(?=[\w-]{20,})(?=[\w-]*\d)[\w-]+/g, '[token]'],
  [/(?<![\w-])(?=[\w-]{32,})(?=[\w-]*[a-z])(?=[\w-]*[A-Z])[\w-]+/g, '[token]'],
];

/**
 * Takes out of a report's text what could name or authenticate a person: email addresses,
 * tokens, passwords and query strings. The page does it before sending and the service again on
 * arrival, since a report is whatever its sender chose to send.
 */
export function scrubClientErrorText(text: string): string {
  let scrubbed = text;
  for (const [pattern, replacement] of SCRUBS) scrubbed = scrubbed.replace(pattern, replacement);
  return scrubbed;
}
