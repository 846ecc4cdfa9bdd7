import { MAX_PERSON_NAME_LENGTH, hasControlCharacters } from '@foyer/contract';

/**
 * What an identity provider asserts about a person (Google's or a connection's ID token, a SAML
 * assertion) is input like any request's: signed by the provider, but written by whoever runs it
 * or edits their profile there. These rules hold for every provider (decisions 0019, 0022).
 */

/**
 * The longest subject (OIDC `sub`, SAML NameID) an identity is keyed on. OIDC Core caps `sub` at
 * 255 ASCII characters and SAML's persistent identifiers at 256; an unspecified NameID format may
 * carry more (a directory's distinguished name), so the bound is looser, but finite.
 */
export const MAX_SUBJECT_LENGTH = 1024;

/**
 * A subject an identity can be keyed on, or undefined: a string with something besides white
 * space, no control characters, at most MAX_SUBJECT_LENGTH long. Kept exactly as sent: `a` and
 * `a ` are two subjects to the provider, so they are two here. A blank subject would be one key
 * shared by everyone the provider sends without one.
 */
export function usableSubject(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.trim() === '' || value.length > MAX_SUBJECT_LENGTH) return undefined;
  return hasControlCharacters(value) ? undefined : value;
}

/**
 * A name for the profile, or undefined: trimmed, cut to MAX_PERSON_NAME_LENGTH characters (whole
 * code points, never half a pair), and left out when blank or holding control characters. A name
 * is a courtesy of the provider's, so a bad one costs the person their name, not their sign-in.
 */
export function assertedName(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const name = Array.from(value.trim()).slice(0, MAX_PERSON_NAME_LENGTH).join('').trim();
  return name === '' || hasControlCharacters(name) ? undefined : name;
}
