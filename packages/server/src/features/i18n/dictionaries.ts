import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { DEFAULT_LOCALE, SUPPORTED_LOCALES, candidateLocales, parseAcceptLanguage, type Locale } from '@foyer/contract';
import { z } from 'zod';

export interface LoadedDictionary {
  locale: Locale;
  messages: Record<string, string>;
  /** Strong validator of the served body (spec §7 files change only with a deploy). */
  etag: string;
}

export type Dictionaries = ReadonlyMap<Locale, LoadedDictionary>;

const Messages = z.record(z.string(), z.string());
const require = createRequire(import.meta.url);

/**
 * Reads the contract's dictionaries once at start, through the contract package's exports
 * (`@foyer/contract/lang/<locale>.json`), so the built server and the tests read the same files.
 * A missing or malformed file leaves that locale out (it answers 404) and is reported.
 */
export function loadDictionaries(warn: (message: string) => void): Dictionaries {
  const loaded = new Map<Locale, LoadedDictionary>();
  for (const locale of SUPPORTED_LOCALES) {
    let json: unknown;
    try {
      json = JSON.parse(readFileSync(require.resolve(`@foyer/contract/lang/${locale}.json`), 'utf8'));
    } catch {
      warn(`Dictionary for ${locale} is missing or not JSON; it will not be served`);
      continue;
    }
    const parsed = Messages.safeParse(json);
    if (!parsed.success) {
      warn(`Dictionary for ${locale} is not a map of strings; it will not be served`);
      continue;
    }
    const etag = `"${createHash('sha256').update(JSON.stringify(parsed.data)).digest('base64url').slice(0, 27)}"`;
    loaded.set(locale, { locale, messages: parsed.data, etag });
  }
  if (!loaded.has(DEFAULT_LOCALE)) throw new Error(`The ${DEFAULT_LOCALE} dictionary is required`);
  return loaded;
}

/** Spec §7: the visitor's languages cut to two letters, tried in order; English when none fits. */
export function bestDictionary(dictionaries: Dictionaries, acceptLanguage: string | undefined): LoadedDictionary {
  for (const candidate of candidateLocales(parseAcceptLanguage(acceptLanguage))) {
    const found = dictionaries.get(candidate as Locale);
    if (found !== undefined) return found;
  }
  return dictionaries.get(DEFAULT_LOCALE) as LoadedDictionary;
}
