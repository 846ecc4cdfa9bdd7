import { DICTIONARY_ELEMENT_ID, FLAG_DEFAULTS, RUNTIME_CONFIG_ELEMENT_ID } from '@foyer/contract/core';
import { describe, expect, it } from 'vitest';
import { takeConsoleErrors } from '../test/console-errors';
import { LOCAL_DEFAULT_CONFIG, readInlineDictionary, readRuntimeConfig } from './runtime-config';

function pageWith(elements: Record<string, string>): Document {
  const doc = document.implementation.createHTMLDocument('page');
  for (const [id, text] of Object.entries(elements)) {
    const script = doc.createElement('script');
    script.type = 'application/json';
    script.id = id;
    script.textContent = text;
    doc.head.append(script);
  }
  return doc;
}

const served = {
  env: 'prod',
  serverUrls: { app: 'https://app.foyer.example' },
  flags: { ...FLAG_DEFAULTS, 'discourse-sso': false },
  googleEnabled: true,
  defaultHome: 'https://app.foyer.example/',
};

describe('runtime config from the page (decision 0006)', () => {
  it('reads what the server wrote', () => {
    const doc = pageWith({ [RUNTIME_CONFIG_ELEMENT_ID]: JSON.stringify(served) });
    expect(readRuntimeConfig(doc)).toEqual(served);
  });

  it('uses the local default when there is no element (the Vite dev server)', () => {
    expect(readRuntimeConfig(pageWith({}))).toEqual(LOCAL_DEFAULT_CONFIG);
    expect(LOCAL_DEFAULT_CONFIG).toMatchObject({ env: 'local', defaultHome: '/home', flags: FLAG_DEFAULTS });
  });

  it.each([
    ['broken JSON', '{'],
    ['an unknown environment', JSON.stringify({ ...served, env: 'moon' })],
    ['a flag of the wrong type', JSON.stringify({ ...served, flags: { ...served.flags, 'requests-version': true } })],
    ['a missing flag', JSON.stringify({ ...served, flags: {} })],
    ['an unknown server kind', JSON.stringify({ ...served, serverUrls: { nowhere: 'https://x' } })],
  ])('falls back to the default, and says so, on %s', (_name, text) => {
    expect(readRuntimeConfig(pageWith({ [RUNTIME_CONFIG_ELEMENT_ID]: text }))).toEqual(LOCAL_DEFAULT_CONFIG);
    expect(takeConsoleErrors()).toHaveLength(1);
  });

  it('reads the inline dictionary, if there is a usable one', () => {
    const dictionary = { locale: 'de', messages: { 'signIn.title': 'Anmelden' } };
    expect(readInlineDictionary(pageWith({ [DICTIONARY_ELEMENT_ID]: JSON.stringify(dictionary) }))).toEqual(dictionary);
    expect(readInlineDictionary(pageWith({}))).toBeUndefined();
    expect(readInlineDictionary(pageWith({ [DICTIONARY_ELEMENT_ID]: '{"locale":"de","messages":{"a":1}}' }))).toBeUndefined();
    expect(takeConsoleErrors()).toHaveLength(1);
  });
});
