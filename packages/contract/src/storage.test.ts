import { describe, expect, it } from 'vitest';
import { ENVIRONMENTS, type Environment } from './environments.js';
import { cookieDomain, cookieRules } from './storage.js';

describe('cookie rules (spec §3)', () => {
  it('share the parent domain of a name and keep Secure', () => {
    expect(cookieRules('auth.foyer.app', 'prod', false)).toEqual({ domain: 'foyer.app', path: '/', sameSite: 'strict', secure: true, httpOnly: true });
    expect(cookieRules('Auth.Staging.Foyer.App', 'staging', true)).toMatchObject({ domain: 'foyer.app', secure: true, httpOnly: false });
  });

  it.each(['203.0.113.5', '10.0.0.8', '[2001:db8::1]', '[::1]', '127.0.0.1', 'localhost'])('never give %s a Domain attribute', (host) => {
    expect(cookieDomain(host)).toBeUndefined();
    for (const env of ENVIRONMENTS) expect(cookieRules(host, env, false)).not.toHaveProperty('domain');
  });

  it.each(['203.0.113.5', '192.168.1.20', '[2001:db8::1]'])('keep Secure on the address %s in every environment', (host) => {
    for (const env of ENVIRONMENTS) expect(cookieRules(host, env, false).secure, env).toBe(true);
  });

  it('drop Secure only for loopback in local and test', () => {
    const insecure = (host: string, env: Environment) => !cookieRules(host, env, false).secure;
    for (const host of ['localhost', '127.0.0.1', '127.1.2.3', '[::1]']) {
      expect(ENVIRONMENTS.filter((env) => insecure(host, env)), host).toEqual(['local', 'test']);
    }
  });
});
