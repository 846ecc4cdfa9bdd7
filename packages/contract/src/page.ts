/**
 * Decision 0006: the server writes the runtime configuration and the dictionary of the
 * visitor's best language (from Accept-Language, English when none is shipped) into index.html
 * as JSON script elements with these ids, so the first paint needs no second round trip and is
 * already translated. The web treats the dictionary as the already-fetched answer for its
 * locale, so the loading order of spec §7 holds.
 */
export const RUNTIME_CONFIG_ELEMENT_ID = 'foyer-config';
export const DICTIONARY_ELEMENT_ID = 'foyer-dictionary';
