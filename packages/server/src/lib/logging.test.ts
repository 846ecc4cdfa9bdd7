import { describe, expect, it } from 'vitest';
import { redactUrl } from './logging.js';

describe('redactUrl', () => {
  it('hides tokens in link paths', () => {
    expect(redactUrl('/api/account/setupAccount/fields/abcdefghijklmnop')).toBe('/api/account/setupAccount/fields/[token]');
    expect(redactUrl('/reset-password/short')).toBe('/reset-password/[token]');
    expect(redactUrl('/ssol/x')).toBe('/ssol/[token]');
  });

  it('hides the token of every contract path that carries one, digits or none', () => {
    // A 43-character base64url token has no digit about once in 1,500 links.
    const token = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQ';
    expect(redactUrl(`/api/account/resetPassword/check/${token}`)).toBe('/api/account/resetPassword/check/[token]');
    expect(redactUrl(`/api/account/setupAccount/fields/${token}`)).toBe('/api/account/setupAccount/fields/[token]');
    for (const route of ['/reset-password', '/verify-email', '/verify-new-email', '/setup-account', '/ssol'])
      expect(redactUrl(`${route}/${token}`)).toBe(`${route}/[token]`);
  });

  it('hides long random-looking segments wherever they are', () => {
    expect(redactUrl('/anything/Zx8vQ2mN4pL6rT0wY3bK9cH1')).toBe('/anything/[token]');
  });

  it('keeps ordinary paths readable', () => {
    expect(redactUrl('/static/lang/localizedStrings-de.json')).toBe('/static/lang/localizedStrings-de.json');
    expect(redactUrl('/api/account/session')).toBe('/api/account/session');
    expect(redactUrl('/verify-new-email-help')).toBe('/verify-new-email-help');
  });

  it('keeps query names and hides their values', () => {
    expect(redactUrl('/discourse-sso?sso=payload&sig=abc&from=%2Fhome')).toBe('/discourse-sso?sso=[redacted]&sig=[redacted]&from=[redacted]');
  });
});
