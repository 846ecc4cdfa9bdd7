import { DICTIONARY_ELEMENT_ID, FLAG_DEFAULTS, RUNTIME_CONFIG_ELEMENT_ID } from '@foyer/contract/core';
import { describe, expect, it } from 'vitest';
import { takeConsoleErrors } from '../test/console-errors';
import { InlineDictionary, RuntimeConfig } from '@foyer/contract';
import { LOCAL_DEFAULT_CONFIG, isInlineDictionary, isRuntimeConfig, readInlineDictionary, readRuntimeConfig } from './runtime-config';

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

/**
 * Decision 0017: the page checks these values without zod, so each guard must say what the
 * contract's schema says, on values that pass and on each way of failing.
 */
describe('the guards agree with the contract’s schemas', () => {
  const configs: Array<[string, unknown]> = [
    ['as served', served],
    ['with a bot-check key', { ...served, reCaptchaSiteKey: 'site-key' }],
    ['with no server addresses', { ...served, serverUrls: {} }],
    ['with a field the page does not know', { ...served, later: true }],
    ['with a flag the page does not know', { ...served, flags: { ...served.flags, later: true } }],
    ['an unknown environment', { ...served, env: 'moon' }],
    ['an unknown server kind', { ...served, serverUrls: { nowhere: 'https://x' } }],
    ['a server address that is not text', { ...served, serverUrls: { app: 1 } }],
    ['a flag of the wrong type', { ...served, flags: { ...served.flags, 'requests-version': true } }],
    ['a missing flag', { ...served, flags: {} }],
    ['a bot-check key that is not text', { ...served, reCaptchaSiteKey: 1 }],
    [
      'with the forum terms, analytics and cookie domain',
      { ...served, communityTermsUrl: 'https://c/tos', analyticsUrl: 'https://a/v1/batch', cookieDomain: 'foyer.app' },
    ],
    ['an analytics address that is not text', { ...served, analyticsUrl: true }],
    ['a terms address that is not text', { ...served, communityTermsUrl: 1 }],
    ['a cookie domain that is not text', { ...served, cookieDomain: {} }],
    ['with the tag manager and the support widget', { ...served, tagManagerId: 'GTM-AB12CD3', supportWidget: { appId: 'ab12cd34', region: 'ap' } }],
    ['a container id that is not text', { ...served, tagManagerId: 7 }],
    ['a widget in a region the spec does not name', { ...served, supportWidget: { appId: 'ab12cd34', region: 'au' } }],
    ['a widget without an app id', { ...served, supportWidget: { region: 'eu' } }],
    ['a widget that is not an object', { ...served, supportWidget: 'ab12cd34' }],
    ['with a call timeout', { ...served, httpTimeoutMs: 15000 }],
    ['a call timeout of zero (absent means none)', { ...served, httpTimeoutMs: 0 }],
    ['a call timeout that is not a whole number', { ...served, httpTimeoutMs: 1.5 }],
    ['a call timeout that is text', { ...served, httpTimeoutMs: '15000' }],
    ['googleEnabled missing', { ...served, googleEnabled: undefined }],
    ['an empty default home', { ...served, defaultHome: '' }],
    ['an array', [served]],
    ['null', null],
  ];

  it.each(configs)('runtime config %s', (_name, value) => {
    expect(isRuntimeConfig(value)).toBe(RuntimeConfig.safeParse(value).success);
  });

  const dictionaries: Array<[string, unknown]> = [
    ['as served', { locale: 'de', messages: { 'signIn.title': 'Anmelden' } }],
    ['with no messages', { locale: 'de', messages: {} }],
    ['with a message that is not text', { locale: 'de', messages: { a: 1 } }],
    ['without a locale', { messages: {} }],
    ['with messages that are a list', { locale: 'de', messages: ['a'] }],
    ['a string', 'de'],
  ];

  it.each(dictionaries)('inline dictionary %s', (_name, value) => {
    expect(isInlineDictionary(value)).toBe(InlineDictionary.safeParse(value).success);
  });
});
