import { candidateLocales, fillPlaceholders, langPath, type InlineDictionary, type MessageKey } from '@foyer/contract/core';
import { createContext, Fragment, useCallback, useContext, useEffect, useLayoutEffect, useMemo, useState, type ReactNode } from 'react';
import { isStringRecord } from './runtime-config';

export type Messages = Readonly<Record<string, string>>;
export interface LoadedDictionary {
  locale: string;
  messages: Messages;
}
/** What is left when there is no inline dictionary and every fetch failed: keys show as themselves. */
const NO_DICTIONARY: LoadedDictionary = { locale: 'en', messages: {} };

export type Translate = (key: MessageKey, values?: Record<string, string | number>) => string;

/** GET /static/lang/localizedStrings-{locale}.json; any failure is `undefined` (spec §7: silent). */
export async function fetchDictionary(locale: string, signal?: AbortSignal): Promise<Messages | undefined> {
  try {
    const init: RequestInit = { headers: { Accept: 'application/json' }, credentials: 'same-origin' };
    if (signal) init.signal = signal;
    const response = await fetch(langPath(locale), init);
    if (!response.ok) return undefined;
    const body: unknown = await response.json();
    return isStringRecord(body) ? body : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Spec §7: the visitor's languages, cut to two letters, are tried in order and the first
 * success wins; an empty list means English; if every one fails the failure is silent. The
 * dictionary the server wrote into the page counts as the already-fetched answer for its own
 * locale (decision 0006), and is also what is left when every fetch fails. Without one (the
 * Vite dev server) every candidate is fetched.
 */
export async function loadDictionary(
  languages: readonly string[],
  inline: InlineDictionary | undefined,
  fetchOne: (locale: string) => Promise<Messages | undefined> = fetchDictionary,
): Promise<LoadedDictionary> {
  for (const locale of candidateLocales(languages)) {
    if (locale === inline?.locale) return inline;
    const messages = await fetchOne(locale);
    if (messages !== undefined) return { locale, messages };
  }
  return inline ?? NO_DICTIONARY;
}

interface I18nValue {
  locale: string;
  t: Translate;
}

const I18nContext = createContext<I18nValue | null>(null);

export function I18nProvider({
  inline,
  languages,
  fallback,
  children,
}: {
  inline: InlineDictionary | undefined;
  languages: readonly string[];
  /** Shown, and nothing else, until the dictionary is settled (a neutral spinner). */
  fallback: ReactNode;
  children: ReactNode;
}) {
  // Usually the first candidate is the inline dictionary's locale: then the first paint is
  // already translated and nothing is fetched.
  const settledAtOnce = inline !== undefined && candidateLocales(languages)[0] === inline.locale;
  const [loaded, setLoaded] = useState<LoadedDictionary | null>(settledAtOnce ? inline : null);

  useEffect(() => {
    if (settledAtOnce) return;
    const controller = new AbortController();
    void loadDictionary(languages, inline, (locale) => fetchDictionary(locale, controller.signal)).then((result) => {
      if (!controller.signal.aborted) setLoaded(result);
    });
    return () => controller.abort();
  }, [settledAtOnce, languages, inline]);

  const base = inline ?? NO_DICTIONARY;
  const dictionary = loaded ?? base;
  // A layout effect: the page language changes in the same commit as the texts, so assistive
  // technology never reads German words with an English voice.
  useLayoutEffect(() => {
    document.documentElement.lang = dictionary.locale;
  }, [dictionary.locale]);

  const t = useCallback<Translate>(
    // A key missing from a translation falls back to the inline text, then to the key itself,
    // so a gap shows up as a readable key rather than an empty element.
    (key, values) => fillPlaceholders(dictionary.messages[key] ?? base.messages[key] ?? key, values),
    [dictionary, base],
  );
  const value = useMemo(() => ({ locale: dictionary.locale, t }), [dictionary.locale, t]);

  return <I18nContext value={value}>{loaded === null ? fallback : children}</I18nContext>;
}

export function useI18n(): I18nValue {
  const value = useContext(I18nContext);
  if (value === null) throw new Error('useI18n needs an I18nProvider');
  return value;
}

export function useT(): Translate {
  return useI18n().t;
}

/**
 * Fills `${name}` placeholders with elements (the links inside a sentence such as the sign-up
 * notice), so each language keeps its own word order around them. A placeholder without an
 * element stays as written, as fillPlaceholders leaves it.
 */
export function fillNodes(text: string, nodes: Record<string, ReactNode>): ReactNode[] {
  return text
    .split(/\$\{([A-Za-z0-9_]+)\}/)
    .map((part, index) => (index % 2 === 0 ? part : <Fragment key={index}>{part in nodes ? nodes[part] : `\${${part}}`}</Fragment>));
}
