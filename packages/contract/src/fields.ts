import { z } from 'zod';
import { EMAIL_PATTERN, HASH_PASSWORD_PATTERN, MAX_EMAIL_LENGTH, NO_CONTROL_CHARACTERS, RANDOM_ID_PATTERN } from './validation.js';

/**
 * Every string a request carries is built from this, so no text field can let a control
 * character or a lone surrogate through to the database (validation.ts says why). The check
 * runs before any trim, so `Ann\n` is refused rather than quietly cut to `Ann`.
 */
export function text() {
  return z.string().regex(NO_CONTROL_CHARACTERS, 'must not contain control characters');
}

/** Field schemas shared by every call (spec §5). */
export const Email = text().trim().max(MAX_EMAIL_LENGTH).regex(EMAIL_PATTERN);
/** Sign-in accepts any non-blank email-ish string: a malformed one simply matches no account. */
export const SignInEmail = text().trim().min(1).max(MAX_EMAIL_LENGTH);
export const HashPassword = text().regex(HASH_PASSWORD_PATTERN);
export const DeviceId = text().regex(RANDOM_ID_PATTERN);
export const PersonName = text().trim().min(1).max(100);
export const PhoneNumber = text().trim().max(40);
/** Opaque tokens from emailed links: base64url, 128 bits or more. */
export const Token = text().min(16).max(200).regex(/^[A-Za-z0-9_-]+$/);
