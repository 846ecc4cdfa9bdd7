import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DICTIONARY_ELEMENT_ID, RUNTIME_CONFIG_ELEMENT_ID, type RuntimeConfig } from '@foyer/contract';
import type { Dictionaries, LoadedDictionary } from '../i18n/dictionaries.js';

/**
 * JSON made safe inside a `<script>` element: `</script>` or `<!--` in a value cannot end the
 * element, and U+2028/2029 cannot break older parsers. Closes a stored-XSS channel through any
 * configured or translated text.
 */
export function jsonForHtml(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

function scriptElement(id: string, json: string): string {
  return `<script type="application/json" id="${id}">${json}</script>`;
}

export interface IndexPage {
  /**
   * The page for one visitor: `<html lang>`, the description and the inline dictionary follow their language; the
   * runtime config is the one of this moment (its flags change without a restart, decision 0024).
   */
  render(dictionary: LoadedDictionary, runtimeConfig: RuntimeConfig): string;
}

const HTML_TAG = /<html\b[^>]*>/i;
const LANG_ATTRIBUTE = /\slang\s*=\s*("[^"]*"|'[^']*'|[^\s>]+)/i;
const HEAD_END = /<\/head\s*>/i;
/** The page's description (what search results and link previews show), in the visitor's language. */
const DESCRIPTION = /(<meta\s+name="description"\s+content=")[^"]*(")/i;
const DESCRIPTION_KEY = 'product.description';

function escapeAttribute(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * Reads index.html once, splits it around `<html lang>` and `</head>`, and precomputes every
 * piece that depends neither on the visitor nor on the moment (decision 0006: config and
 * dictionary inline, so the first paint needs no second round trip). Undefined when the web app
 * is not built.
 */
export function loadIndexPage(webDist: string, dictionaries: Dictionaries): IndexPage | undefined {
  const file = join(webDist, 'index.html');
  if (!existsSync(file)) return undefined;
  const html = readFileSync(file, 'utf8');
  const headEnd = HEAD_END.exec(html);
  if (headEnd === null) throw new Error(`${file} has no </head>`);

  const dictionaryScripts = new Map<string, string>();
  for (const dictionary of dictionaries.values()) {
    const inline = { locale: dictionary.locale, messages: dictionary.messages };
    dictionaryScripts.set(dictionary.locale, scriptElement(DICTIONARY_ELEMENT_ID, jsonForHtml(inline)));
  }

  const head = html.slice(0, headEnd.index);
  const tail = html.slice(headEnd.index);
  const htmlTag = HTML_TAG.exec(head);
  // Pieces around the lang value: before + locale + between + scripts + tail.
  let before = head;
  let between = '';
  let withLang = false;
  if (htmlTag !== null) {
    const tag = htmlTag[0].replace(LANG_ATTRIBUTE, '');
    before = `${head.slice(0, htmlTag.index)}${tag.slice(0, -1)} lang="`;
    between = `">${head.slice(htmlTag.index + htmlTag[0].length)}`;
    withLang = true;
  }
  const betweens = new Map<string, string>();
  for (const dictionary of dictionaries.values()) {
    const description = dictionary.messages[DESCRIPTION_KEY];
    if (description !== undefined)
      betweens.set(
        dictionary.locale,
        between.replace(DESCRIPTION, (_match, open: string, close: string) => `${open}${escapeAttribute(description)}${close}`),
      );
  }

  return {
    render(dictionary, runtimeConfig) {
      const scripts = scriptElement(RUNTIME_CONFIG_ELEMENT_ID, jsonForHtml(runtimeConfig)) + (dictionaryScripts.get(dictionary.locale) ?? '');
      return withLang ? `${before}${dictionary.locale}${betweens.get(dictionary.locale) ?? between}${scripts}${tail}` : `${before}${scripts}${tail}`;
    },
  };
}
