import { LIMITS } from './flags.js';

/**
 * Spec §5 email pattern: the local part starts with a letter or digit, allows the usual email
 * punctuation and is at most 64 characters; then `@` and dot-separated labels of at most 63
 * characters made of letters, digits and inner hyphens. At least two labels. No two dots in a
 * row in the local part (RFC 5322's dot-atom): unquoted, such an address is not valid SMTP, a
 * mail server refuses it, and its verification link could never arrive.
 */
export const EMAIL_PATTERN =
  /^(?![^@]*\.\.)[A-Za-z0-9][A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]{0,63}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;

/** RFC 5321 path limit: no real mailbox is longer. */
export const MAX_EMAIL_LENGTH = 254;

export function isValidEmail(value: string): boolean {
  return value.length <= MAX_EMAIL_LENGTH && EMAIL_PATTERN.test(value);
}

/**
 * The key every per-email rule uses (lockout, rate limits, uniqueness): trimmed and lower-cased,
 * so `Ann@Example.com ` and `ann@example.com` are one account and one counter.
 */
export function normalizeEmail(value: string): string {
  return value.trim().toLowerCase();
}

/** Spec §5: the browser sends SHA-256 of the password as 64 lower-case hex characters. */
export const HASH_PASSWORD_PATTERN = /^[0-9a-f]{64}$/;

export function passwordLengthOk(password: string): boolean {
  // Counted in code points, as NIST SP 800-63B counts characters.
  const length = [...password].length;
  return length >= LIMITS.minPasswordLength && length <= LIMITS.maxPasswordLength;
}

/** Spec §5: names must not be blank after trimming. */
export function nameOk(value: string): boolean {
  return value.trim().length > 0;
}

/** The longest first or last name any call accepts (fields.ts `PersonName`). */
export const MAX_PERSON_NAME_LENGTH = 100;

/** A first or last name as every call takes it: not blank, at most 100 characters once trimmed, no control character. */
export function personNameOk(value: string): boolean {
  const trimmed = value.trim();
  return trimmed.length > 0 && trimmed.length <= MAX_PERSON_NAME_LENGTH && NO_CONTROL_CHARACTERS.test(trimmed);
}

/** Spec §5: sign-in needs both trimmed fields. */
export function signInReady(email: string, password: string): boolean {
  return email.trim().length > 0 && password.trim().length > 0;
}

/** Spec §5: SSO sign-in needs only a trimmed email; the service decides whether it knows it. */
export function ssoSignInReady(email: string): boolean {
  return email.trim().length > 0;
}

/** Spec §9: generated random ids (device ids) are 12 characters. */
export const RANDOM_ID_PATTERN = /^[A-Za-z0-9_-]{12}$/;

/**
 * What no text in a request may contain: C0 and C1 controls and DEL (`\p{Cc}`), and UTF-16
 * surrogates outside a pair (with the `u` flag `\p{Cs}` matches only lone ones). PostgreSQL
 * refuses NUL and lone surrogates in text, which turned such input into a 500 on only the paths
 * that store it (an account-existence oracle); the rest have no place in a name, id or token and
 * are how log and header injection begin.
 */
export const NO_CONTROL_CHARACTERS = /^[^\p{Cc}\p{Cs}]*$/u;

export function hasControlCharacters(value: string): boolean {
  return !NO_CONTROL_CHARACTERS.test(value);
}
