import { describe, expect, it } from 'vitest';
import { ENVIRONMENTS, type Environment } from './environments.js';
import { cookieRules, isCookieDomainOf } from './storage.js';

describe('cookie rules (spec §3)', () => {
  it('share the configured parent domain and keep Secure', () => {
    expect(cookieRules('auth.foyer.app', 'prod', false, 'foyer.app')).toEqual({
      domain: 'foyer.app',
      path: '/',
      sameSite: 'strict',
      secure: true,
      httpOnly: true,
    });
    expect(cookieRules('Auth.Staging.Foyer.App', 'staging', true, 'staging.foyer.app')).toMatchObject({
      domain: 'staging.foyer.app',
      secure: true,
      httpOnly: false,
    });
  });

  it('never guess a domain from the host name: without one the cookie is host-only', () => {
    for (const host of ['auth.example.co.uk', 'auth.staging.foyer.app', 'foyer.app', '203.0.113.5', '[::1]', 'localhost']) {
      for (const env of ENVIRONMENTS) expect(cookieRules(host, env, false)).not.toHaveProperty('domain');
    }
  });

  it('accept a domain only for its own host and its subdomains', () => {
    expect(isCookieDomainOf('auth.example.co.uk', 'example.co.uk')).toBe(true);
    expect(isCookieDomainOf('Auth.Foyer.App', '.foyer.app')).toBe(true);
    expect(isCookieDomainOf('foyer.app', 'foyer.app')).toBe(true);
    expect(isCookieDomainOf('auth.staging.foyer.app', 'auth.foyer.app')).toBe(false);
    expect(isCookieDomainOf('evilfoyer.app', 'foyer.app')).toBe(false);
    expect(isCookieDomainOf('foyer.app', 'auth.foyer.app')).toBe(false);
  });

  it.each(['203.0.113.5', '192.168.1.20', '[2001:db8::1]'])('keep Secure on the address %s in every environment', (host) => {
    for (const env of ENVIRONMENTS) expect(cookieRules(host, env, false).secure, env).toBe(true);
  });

  it('drop Secure only for loopback in local and test', () => {
    const insecure = (host: string, env: Environment) => !cookieRules(host, env, false).secure;
    for (const host of ['localhost', '127.0.0.1', '127.1.2.3', '[::1]']) {
      expect(
        ENVIRONMENTS.filter((env) => insecure(host, env)),
        host,
      ).toEqual(['local', 'test']);
    }
  });
});
