import en from '@foyer/contract/lang/en.json';
import fr from '@foyer/contract/lang/fr.json';
import { render, screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { PageSpinner } from '../components/card-layout';
import { json, stubFetch } from '../test/harness';
import { fillNodes, I18nProvider, loadDictionary, useT, type Messages } from './i18n';

const inlineEn = { locale: 'en', messages: en };

function fetcher(answers: Record<string, Messages | undefined>) {
  return vi.fn((locale: string) => Promise.resolve(answers[locale]));
}

describe('loading the dictionary (spec §7)', () => {
  it('tries the languages in order, cut to two letters, and the first success wins', async () => {
    const fetchOne = fetcher({ fr: { 'signIn.title': 'Connexion' }, es: { 'signIn.title': 'Iniciar sesión' } });
    const result = await loadDictionary(['de-CH', 'de-DE', 'fr-FR', 'es'], inlineEn, fetchOne);
    expect(fetchOne.mock.calls.map(([locale]) => locale)).toEqual(['de', 'fr']);
    expect(result).toEqual({ locale: 'fr', messages: { 'signIn.title': 'Connexion' } });
  });

  it('uses the inline dictionary for its own locale without fetching it', async () => {
    const fetchOne = fetcher({ en: { 'signIn.title': 'fetched' } });
    const result = await loadDictionary(['xx', 'en-GB', 'fr'], inlineEn, fetchOne);
    expect(fetchOne.mock.calls.map(([locale]) => locale)).toEqual(['xx']);
    expect(result).toBe(inlineEn);
  });

  it('treats an empty list as English', async () => {
    const fetchOne = fetcher({ en: { 'signIn.title': 'Sign In' } });
    const result = await loadDictionary([], { locale: 'de', messages: {} }, fetchOne);
    expect(fetchOne.mock.calls.map(([locale]) => locale)).toEqual(['en']);
    expect(result.locale).toBe('en');
  });

  it('falls back to the inline dictionary, silently, when every fetch fails', async () => {
    const calls = stubFetch({
      'GET /static/lang/localizedStrings-de.json': () => json(500, {}),
      'GET /static/lang/localizedStrings-it.json': () => Promise.reject(new TypeError('Failed to fetch')),
      'GET /static/lang/localizedStrings-pt.json': () => new Response('not json', { status: 200 }),
    });
    const result = await loadDictionary(['de', 'it', 'pt', 'ja'], inlineEn);
    expect(calls.map((call) => call.url)).toEqual([
      '/static/lang/localizedStrings-de.json',
      '/static/lang/localizedStrings-it.json',
      '/static/lang/localizedStrings-pt.json',
      '/static/lang/localizedStrings-ja.json',
    ]);
    expect(result).toBe(inlineEn);
  });
});

function Greeting() {
  const t = useT();
  return (
    <>
      <h1>{t('signIn.title')}</h1>
      <p>{t('home.signedInAs', { name: 'Ann Lee' })}</p>
    </>
  );
}

describe('I18nProvider', () => {
  it('shows only a neutral spinner until the dictionary is settled, then the texts and the page language', async () => {
    stubFetch({ 'GET /static/lang/localizedStrings-fr.json': () => json(200, fr) });
    render(
      <I18nProvider inline={inlineEn} languages={['fr-CA', 'en']} fallback={<PageSpinner />}>
        <Greeting />
      </I18nProvider>,
    );
    expect(screen.getByRole('status')).toBeInTheDocument();
    // Its only heading is the product's name, the same in every language.
    expect(screen.getByRole('heading')).toHaveTextContent(/^Foyer$/);
    expect(await screen.findByRole('heading', { name: fr['signIn.title'] })).toBeInTheDocument();
    expect(screen.getByText(fr['home.signedInAs'].replace('${name}', 'Ann Lee'))).toBeInTheDocument();
    expect(document.documentElement.lang).toBe('fr');
  });

  it('renders at once from the inline dictionary and fills placeholders', () => {
    const fetchSpy = stubFetch({});
    render(
      <I18nProvider inline={inlineEn} languages={['en-US']} fallback={<PageSpinner />}>
        <Greeting />
      </I18nProvider>,
    );
    expect(screen.getByRole('heading', { name: 'Sign In' })).toBeInTheDocument();
    expect(screen.getByText('Signed in as Ann Lee')).toBeInTheDocument();
    expect(document.documentElement.lang).toBe('en');
    expect(fetchSpy).toEqual([]);
  });

  it('without an inline dictionary fetches even the first language, and shows keys if nothing loads', async () => {
    const calls = stubFetch({ 'GET /static/lang/localizedStrings-en.json': () => json(200, en) });
    const { unmount } = render(
      <I18nProvider inline={undefined} languages={['en-US']} fallback={<PageSpinner />}>
        <Greeting />
      </I18nProvider>,
    );
    expect(await screen.findByRole('heading', { name: 'Sign In' })).toBeInTheDocument();
    expect(calls.map((call) => call.url)).toEqual(['/static/lang/localizedStrings-en.json']);
    unmount();

    stubFetch({});
    render(
      <I18nProvider inline={undefined} languages={['en-US']} fallback={<PageSpinner />}>
        <Greeting />
      </I18nProvider>,
    );
    expect(await screen.findByRole('heading', { name: 'signIn.title' })).toBeInTheDocument();
  });

  it('falls back to the inline text, then to the key, for a text the dictionary lacks', async () => {
    stubFetch({ 'GET /static/lang/localizedStrings-de.json': () => json(200, { 'home.signedInAs': 'Angemeldet als ${name}' }) });
    render(
      <I18nProvider inline={{ locale: 'en', messages: { 'signIn.title': 'Sign In' } }} languages={['de']} fallback={<PageSpinner />}>
        <Greeting />
      </I18nProvider>,
    );
    expect(await screen.findByText('Angemeldet als Ann Lee')).toBeInTheDocument();
    expect(screen.getByRole('heading', { name: 'Sign In' })).toBeInTheDocument();
  });
});

describe('dictionaries', () => {
  it('every language has exactly the English keys', async () => {
    const others = await Promise.all(
      ['de', 'fr', 'es'].map((locale) => import(`../../../contract/src/lang/${locale}.json`) as Promise<{ default: Record<string, string> }>),
    );
    for (const other of others) expect(Object.keys(other.default).sort()).toEqual(Object.keys(en).sort());
  });
});

describe('fillNodes', () => {
  it('puts elements where the translation places them and keeps unknown placeholders', () => {
    render(
      <p data-testid="notice">
        {fillNodes('Lisez nos ${terms} et notre ${privacy} (${other}).', { terms: <a href="/t">conditions</a>, privacy: <a href="/p">politique</a> })}
      </p>,
    );
    expect(screen.getByTestId('notice')).toHaveTextContent('Lisez nos conditions et notre politique (${other}).');
    expect(screen.getByRole('link', { name: 'conditions' })).toHaveAttribute('href', '/t');
    expect(screen.getByRole('link', { name: 'politique' })).toHaveAttribute('href', '/p');
  });
});
