import { z } from 'zod';
import { EMAIL_PATTERN, HASH_PASSWORD_PATTERN, MAX_EMAIL_LENGTH, RANDOM_ID_PATTERN } from './validation.js';

/** Field schemas shared by every call (spec §5). */
export const Email = z.string().trim().max(MAX_EMAIL_LENGTH).regex(EMAIL_PATTERN);
/** Sign-in accepts any non-blank email-ish string: a malformed one simply matches no account. */
export const SignInEmail = z.string().trim().min(1).max(MAX_EMAIL_LENGTH);
export const HashPassword = z.string().regex(HASH_PASSWORD_PATTERN);
export const DeviceId = z.string().regex(RANDOM_ID_PATTERN);
export const PersonName = z.string().trim().min(1).max(100);
export const PhoneNumber = z.string().trim().max(40);
/** Opaque tokens from emailed links: base64url, 128 bits or more. */
export const Token = z.string().min(16).max(200).regex(/^[A-Za-z0-9_-]+$/);
