import { readFileSync } from 'node:fs';
import { SUPPORTED_LOCALES, placeholdersOf } from '@foyer/contract';
import { describe, expect, it } from 'vitest';
import { invitationMail } from '../organizations/invitation.mail.js';
import { signupAttemptMail, verifyEmailMail } from '../signup/signup.mail.js';
import { PRODUCT_NAME, escapeHtml, localeFromAcceptLanguage, mailLocale, renderMail, type MailTemplate } from './mail.template.js';

const dictionary = (locale: string): Record<string, string> =>
  JSON.parse(readFileSync(new URL(`./lang/${locale}.json`, import.meta.url), 'utf8')) as Record<string, string>;

const LINK = 'https://auth.foyer.app/verify-email/AbC_123-xyz';
const SAMPLES: Array<[MailTemplate<never>, unknown]> = [
  [verifyEmailMail as MailTemplate<never>, { link: LINK, hours: 24 }],
  [
    signupAttemptMail as MailTemplate<never>,
    { firstName: 'Ada', signInUrl: 'https://auth.foyer.app/sign-in', resetUrl: 'https://auth.foyer.app/forgot-password' },
  ],
  [invitationMail as MailTemplate<never>, { organization: 'Acme', link: 'https://auth.foyer.app/setup-account/AbC_123-xyz', days: 7 }],
];

describe('mail dictionaries', () => {
  const english = dictionary('en');

  it.each(SUPPORTED_LOCALES.filter((locale) => locale !== 'en'))('%s has every English key, with the same placeholders', (locale) => {
    const other = dictionary(locale);
    expect(Object.keys(other).sort()).toEqual(Object.keys(english).sort());
    for (const [key, text] of Object.entries(english)) {
      expect(placeholdersOf(other[key] ?? ''), `${locale} ${key}`).toEqual(placeholdersOf(text));
      expect(other[key]?.trim(), `${locale} ${key}`).not.toBe('');
    }
  });
});

describe('renderMail', () => {
  it.each(SUPPORTED_LOCALES)('renders every template in %s with a text and an HTML part, the product name and the links', (locale) => {
    for (const [template, data] of SAMPLES) {
      const mail = renderMail(template, locale, data as never);
      expect(mail.subject).toContain(PRODUCT_NAME);
      expect(mail.subject).not.toMatch(/\$\{|\n/);
      expect(mail.text).toContain(PRODUCT_NAME);
      expect(mail.text).not.toContain('${');
      expect(mail.html).toContain(`<html lang="${locale}">`);
      expect(mail.html).toContain(PRODUCT_NAME);
      for (const url of Object.values(data as Record<string, unknown>).filter((value) => typeof value === 'string' && value.startsWith('https://'))) {
        expect(mail.text).toContain(url as string);
        expect(mail.html).toContain(`href="${escapeHtml(url as string)}"`);
      }
    }
  });

  it('speaks the language it is asked to', () => {
    expect(renderMail(verifyEmailMail, 'de', { link: LINK, hours: 24 }).subject).toBe('Bestätigen Sie Ihre E-Mail-Adresse für Foyer');
    expect(renderMail(signupAttemptMail, 'fr', { firstName: 'Ada', signInUrl: LINK, resetUrl: LINK }).text).toContain('Bonjour Ada,');
    expect(renderMail(verifyEmailMail, 'es', { link: LINK, hours: 24 }).text).toContain('24 horas');
  });

  it('escapes what people type in the HTML part and keeps it as typed in the text part', () => {
    const name = '<img src=x onerror="alert(1)"> & Co';
    const mail = renderMail(signupAttemptMail, 'en', { firstName: name, signInUrl: LINK, resetUrl: LINK });
    expect(mail.html).not.toContain('<img');
    expect(mail.html).toContain('Hi &#60;img src=x onerror=&#34;alert(1)&#34;&#62; &#38; Co,');
    expect(mail.text).toContain(`Hi ${name},`);
  });

  it('keeps a subject on one line whatever a name in it contains', () => {
    const mail = renderMail(invitationMail, 'en', { organization: 'Acme\r\nBcc: victim@example.com', link: LINK, days: 7 });
    expect(mail.subject).toBe('You are invited to join Acme Bcc: victim@example.com on Foyer');
  });

  it('greets without a name when the account has none', () => {
    expect(renderMail(signupAttemptMail, 'en', { firstName: null, signInUrl: LINK, resetUrl: LINK }).text).toMatch(/^Hello,\n/);
    expect(renderMail(signupAttemptMail, 'en', { firstName: '  ', signInUrl: LINK, resetUrl: LINK }).text).toMatch(/^Hello,\n/);
    // A verification goes to a mailbox whose owner may not be who typed the names: none of them.
    expect(renderMail(verifyEmailMail, 'en', { link: LINK, hours: 24 }).text).toMatch(/^Hello,\n/);
  });
});

describe('mail language', () => {
  it('follows Accept-Language like the pages do (spec §7), English when nothing fits', () => {
    expect(localeFromAcceptLanguage('de-DE,de;q=0.9,en;q=0.8')).toBe('de');
    expect(localeFromAcceptLanguage('ja,fr;q=0.5')).toBe('fr');
    expect(localeFromAcceptLanguage('ja')).toBe('en');
    expect(localeFromAcceptLanguage(undefined)).toBe('en');
    expect(mailLocale('es')).toBe('es');
    expect(mailLocale('xx')).toBe('en');
    expect(mailLocale(null)).toBe('en');
  });
});
