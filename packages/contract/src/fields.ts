import * as z from 'zod/mini';
import { EMAIL_PATTERN, HASH_PASSWORD_PATTERN, MAX_EMAIL_LENGTH, MAX_PERSON_NAME_LENGTH, NO_CONTROL_CHARACTERS, RANDOM_ID_PATTERN } from './validation.js';

/**
 * Every string a request carries is built from this, so no text field can let a control
 * character or a lone surrogate through to the database (validation.ts says why). The check
 * runs before any trim, so `Ann\n` is refused rather than quietly cut to `Ann`.
 *
 * The contract is written with zod's light build (`zod/mini`, decision 0017): the browser loads
 * these schemas to parse answers, and the server's type provider takes them as they are.
 */
export function text() {
  return z.string().check(z.regex(NO_CONTROL_CHARACTERS, 'must not contain control characters'));
}

/** Field schemas shared by every call (spec §5). */
export const Email = text().check(z.trim(), z.maxLength(MAX_EMAIL_LENGTH), z.regex(EMAIL_PATTERN));
/** Sign-in accepts any non-blank email-ish string: a malformed one simply matches no account. */
export const SignInEmail = text().check(z.trim(), z.minLength(1), z.maxLength(MAX_EMAIL_LENGTH));
/**
 * Spec §5: the password's SHA-256, in hex. A client whose hex is upper-case (Java's, .NET's) sends
 * the same digest: lower-cased before the check, so it signs in to the same account.
 */
export const HashPassword = text().check(z.toLowerCase(), z.regex(HASH_PASSWORD_PATTERN));
export const DeviceId = text().check(z.regex(RANDOM_ID_PATTERN));
export const PersonName = text().check(z.trim(), z.minLength(1), z.maxLength(MAX_PERSON_NAME_LENGTH));
export const PhoneNumber = text().check(z.trim(), z.maxLength(40));
/**
 * Opaque tokens from emailed links and hand-overs (base64url, 256 bits, as issued). Only their size
 * is checked here: a link cut short or mangled on its way is an invalid link, so the service answers
 * it with the code spec §8 gives an invalid link (`invalidToken`, `ssoTransferFailed`), which a client
 * written from the spec explains, not with a validation failure.
 */
export const Token = text().check(z.minLength(1), z.maxLength(200));
