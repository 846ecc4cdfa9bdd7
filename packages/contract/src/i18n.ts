import type en from './lang/en.json';

/** Shipped dictionaries; English is the reference set (spec §3, §7). */
export const SUPPORTED_LOCALES = ['en', 'de', 'fr', 'es'] as const;
export type Locale = (typeof SUPPORTED_LOCALES)[number];
export const DEFAULT_LOCALE: Locale = 'en';

export type MessageKey = keyof typeof en;
export type Dictionary = Record<MessageKey, string>;

export function isSupportedLocale(value: string): value is Locale {
  return (SUPPORTED_LOCALES as readonly string[]).includes(value);
}

/**
 * Spec §7: the visitor's languages are cut to two characters and tried in order; an empty list
 * means English. Duplicates after cutting (`en-US`, `en-GB`) are tried once.
 */
export function candidateLocales(languages: readonly string[]): string[] {
  const out: string[] = [];
  for (const language of languages) {
    const code = language.trim().slice(0, 2).toLowerCase();
    if (/^[a-z]{2}$/.test(code) && !out.includes(code)) out.push(code);
  }
  return out.length === 0 ? [DEFAULT_LOCALE] : out;
}

/** Spec §3: text may contain `${name}` placeholders filled by supplied values. */
export function fillPlaceholders(text: string, values: Record<string, string | number> = {}): string {
  return text.replace(/\$\{([A-Za-z0-9_]+)\}/g, (whole, name: string) => {
    const value = values[name];
    return value === undefined ? whole : String(value);
  });
}

/** The placeholder names a text uses, for checking that translations keep them. */
export function placeholdersOf(text: string): string[] {
  return [...text.matchAll(/\$\{([A-Za-z0-9_]+)\}/g)].map((m) => m[1] ?? '').sort();
}

/** Parses an Accept-Language header into languages in preference order. */
export function parseAcceptLanguage(header: string | undefined): string[] {
  if (!header) return [];
  return header
    .split(',')
    .map((part, index) => {
      const [tag = '', ...params] = part.trim().split(';');
      const q = params.map((p) => /^q=([0-9.]+)$/.exec(p.trim())?.[1]).find((x) => x !== undefined);
      return { tag: tag.trim(), q: q === undefined ? 1 : Number(q), index };
    })
    .filter((entry) => entry.tag !== '' && entry.tag !== '*' && entry.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index)
    .map((entry) => entry.tag);
}
