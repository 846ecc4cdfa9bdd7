import { langPath } from '@foyer/contract';
import { describe, expect, it } from 'vitest';
import { dbUnavailable, useTestApp } from '../../../test/helpers.js';
import { bestDictionary } from './dictionaries.js';

describe.skipIf(dbUnavailable)('localisation files (spec §7)', () => {
  const t = useTestApp();

  it('serves the German dictionary with short public caching and an ETag', async () => {
    const response = await t.app.inject({ method: 'GET', url: langPath('de') });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.headers['cache-control']).toBe('public, max-age=300');
    const body = response.json<Record<string, string>>();
    expect(body['signIn.submit']).toBeTypeOf('string');
    expect(body).toEqual(t.app.dictionaries.get('de')?.messages);

    const again = await t.app.inject({ method: 'GET', url: langPath('de'), headers: { 'if-none-match': String(response.headers.etag) } });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
  });

  it('serves every shipped locale', async () => {
    for (const locale of ['en', 'de', 'fr', 'es']) {
      expect((await t.app.inject({ method: 'GET', url: langPath(locale) })).statusCode).toBe(200);
    }
  });

  it('answers notFound for an unknown or malformed locale', async () => {
    for (const url of [
      langPath('xx'),
      langPath('EN'),
      langPath('..%2Fetc'),
      '/static/lang/localizedStrings-../etc.json',
      '/static/lang/localizedStrings-../../package.json',
      '/static/lang/localizedStrings-.json',
    ]) {
      const response = await t.app.inject({ method: 'GET', url });
      expect(response.statusCode, url).toBe(404);
      expect(response.json(), url).toEqual({ errorMessage: 'notFound' });
    }
  });
});

describe.skipIf(dbUnavailable)('best dictionary for Accept-Language', () => {
  const t = useTestApp();
  it('takes the first shipped language, cut to two letters, else English', () => {
    const pick = (header: string | undefined) => bestDictionary(t.app.dictionaries, header).locale;
    expect(pick('de-CH, en;q=0.5')).toBe('de');
    expect(pick('pt-BR, fr;q=0.8, de;q=0.9')).toBe('de');
    expect(pick('ja')).toBe('en');
    expect(pick(undefined)).toBe('en');
    expect(pick('garbage;;;,')).toBe('en');
  });
});
