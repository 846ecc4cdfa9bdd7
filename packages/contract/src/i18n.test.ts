import { describe, expect, it } from 'vitest';
import de from './lang/de.json' with { type: 'json' };
import en from './lang/en.json' with { type: 'json' };
import es from './lang/es.json' with { type: 'json' };
import fr from './lang/fr.json' with { type: 'json' };
import { candidateLocales, fillPlaceholders, parseAcceptLanguage, placeholdersOf } from './i18n.js';

describe('localisation rules (spec §7)', () => {
  it('cuts languages to two letters, keeps order, drops repeats', () => {
    expect(candidateLocales(['de-CH', 'de-DE', 'fr', 'en-US'])).toEqual(['de', 'fr', 'en']);
  });

  it('an empty list means English', () => {
    expect(candidateLocales([])).toEqual(['en']);
  });

  it('fills ${name} placeholders and leaves unknown ones', () => {
    expect(fillPlaceholders('Signed in as ${name} (${x})', { name: 'Ann' })).toBe('Signed in as Ann (${x})');
  });

  it('reads Accept-Language by weight', () => {
    expect(parseAcceptLanguage('fr;q=0.5, de-DE, en;q=0.8, *;q=0.1')).toEqual(['de-DE', 'en', 'fr']);
  });
});

describe('shipped dictionaries', () => {
  const reference = en as Record<string, string>;
  it.each([
    ['de', de],
    ['fr', fr],
    ['es', es],
  ])('%s has every English key, no other, each translated with the same placeholders', (_, dictionary) => {
    const translated = dictionary as Record<string, string>;
    expect(Object.keys(translated).sort()).toEqual(Object.keys(reference).sort());
    for (const [key, text] of Object.entries(reference)) {
      const other = translated[key] ?? '';
      expect(other.trim(), key).not.toBe('');
      expect(placeholdersOf(other), key).toEqual(placeholdersOf(text));
    }
  });
});
