import { SUPPORTED_LOCALES } from '@foyer/contract';
import { describe, expect, it } from 'vitest';
import { PRODUCT_NAME, escapeHtml, renderMail } from '../mail/mail.template.js';
import { passwordChangedMail, passwordResetMail } from './password.mail.js';

const RESET_LINK = 'https://auth.foyer.app/reset-password/AbC_123-xyz';
const SIGN_IN = 'https://auth.foyer.app/sign-in';
const FORGOT = 'https://auth.foyer.app/forgot-password';

const SUBJECTS = {
  reset: {
    en: 'Reset your Foyer password',
    de: 'Setzen Sie Ihr Foyer-Passwort zurück',
    fr: 'Réinitialisez votre mot de passe Foyer',
    es: 'Restablezca su contraseña de Foyer',
  },
  changed: {
    en: 'Your Foyer password was changed',
    de: 'Ihr Foyer-Passwort wurde geändert',
    fr: 'Le mot de passe de votre compte Foyer a été modifié',
    es: 'Se ha cambiado su contraseña de Foyer',
  },
} as const;

describe('password mails', () => {
  it.each(SUPPORTED_LOCALES)('renders the reset mail in %s with its link, lifetime and greeting', (locale) => {
    const mail = renderMail(passwordResetMail, locale, { firstName: 'Ada', link: RESET_LINK, minutes: 60 });
    expect(mail.subject).toBe(SUBJECTS.reset[locale]);
    expect(mail.text).toContain(RESET_LINK);
    expect(mail.text).toContain('60');
    expect(mail.text).toContain('Ada');
    expect(mail.text).not.toContain('${');
    expect(mail.html).toContain(`href="${escapeHtml(RESET_LINK)}"`);
    expect(mail.html).toContain(`<html lang="${locale}">`);
  });

  it.each(SUPPORTED_LOCALES)('renders the password-changed mail in %s with sign-in and forgot-password links', (locale) => {
    const mail = renderMail(passwordChangedMail, locale, { firstName: null, signInUrl: SIGN_IN, resetUrl: FORGOT });
    expect(mail.subject).toBe(SUBJECTS.changed[locale]);
    expect(mail.subject).toContain(PRODUCT_NAME);
    for (const url of [SIGN_IN, FORGOT]) {
      expect(mail.text).toContain(url);
      expect(mail.html).toContain(`href="${escapeHtml(url)}"`);
    }
    expect(mail.text).not.toContain('${');
  });
});
