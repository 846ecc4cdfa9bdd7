import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.js';

const load = (env: Record<string, string>) => loadConfig({ SECRET_KEY: 'a-secret-key-of-at-least-32-characters', ...env }, '/srv/foyer');
const DEPLOYED = { FOYER_ENV: 'prod', PUBLIC_URL: 'https://auth.example.co.uk' };

function errorOf(env: Record<string, string>): string {
  try {
    load(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).message;
  }
  throw new Error('expected a ConfigError');
}

describe('COOKIE_DOMAIN (decision 0018)', () => {
  it('is unset by default: cookies are host-only, nothing is guessed from PUBLIC_URL', () => {
    expect(load(DEPLOYED)).not.toHaveProperty('cookieDomain');
    expect(load({})).not.toHaveProperty('cookieDomain');
  });

  it('takes the host itself or a parent of it, in lower case without a leading dot', () => {
    expect(load({ ...DEPLOYED, COOKIE_DOMAIN: 'example.co.uk' }).cookieDomain).toBe('example.co.uk');
    expect(load({ ...DEPLOYED, COOKIE_DOMAIN: '.Example.CO.uk' }).cookieDomain).toBe('example.co.uk');
    expect(load({ ...DEPLOYED, COOKIE_DOMAIN: 'auth.example.co.uk' }).cookieDomain).toBe('auth.example.co.uk');
  });

  it('refuses at boot a domain the PUBLIC_URL host is not inside, naming the variable', () => {
    // Staging configured with production's domain, or the other way round.
    expect(errorOf({ FOYER_ENV: 'staging', PUBLIC_URL: 'https://auth.staging.foyer.app', COOKIE_DOMAIN: 'auth.foyer.app' })).toContain(
      'COOKIE_DOMAIN: must be the host of PUBLIC_URL (auth.staging.foyer.app) or a parent domain of it',
    );
    expect(errorOf({ ...DEPLOYED, COOKIE_DOMAIN: 'other.co.uk' })).toContain('COOKIE_DOMAIN:');
    expect(errorOf({ ...DEPLOYED, COOKIE_DOMAIN: 'ample.co.uk' })).toContain('COOKIE_DOMAIN:');
  });

  it('refuses a public suffix, for which browsers drop the cookie and no sign-in would hold', () => {
    expect(errorOf({ ...DEPLOYED, COOKIE_DOMAIN: 'co.uk' })).toContain('COOKIE_DOMAIN: must not be a public suffix (co.uk)');
    expect(errorOf({ FOYER_ENV: 'staging', PUBLIC_URL: 'https://foyer-staging.github.io', COOKIE_DOMAIN: 'github.io' })).toContain(
      'COOKIE_DOMAIN: must not be a public suffix (github.io)',
    );
  });

  it('refuses what is no domain name: one label, an address, a port or a path', () => {
    for (const value of ['uk', 'localhost', '127.0.0.1', 'example.co.uk:443', 'example.co.uk/x', 'exa mple.co.uk']) {
      expect(errorOf({ ...DEPLOYED, COOKIE_DOMAIN: value }), value).toContain('COOKIE_DOMAIN: must be a domain name');
    }
  });
});

describe('DATABASE_POOL_SIZE', () => {
  it('sizes the PostgreSQL pool when set, and leaves the default (10, db/database.ts) otherwise', () => {
    expect(load({ DATABASE_URL: 'postgres://u@db/foyer', DATABASE_POOL_SIZE: '25' }).database).toEqual({
      kind: 'postgres',
      connectionString: 'postgres://u@db/foyer',
      poolSize: 25,
    });
    expect(load({ DATABASE_URL: 'postgres://u@db/foyer' }).database).not.toHaveProperty('poolSize');
  });

  it('refuses a size that is not a whole number from 1 to 1000', () => {
    for (const value of ['0', '-1', '2.5', 'ten', '1001']) expect(errorOf({ DATABASE_POOL_SIZE: value }), value).toContain('DATABASE_POOL_SIZE:');
  });
});

describe('METRICS_TOKEN', () => {
  it('is kept when long enough, and refused when short or with spaces', () => {
    const token = 'm'.repeat(32);
    expect(load({ METRICS_TOKEN: token }).metricsToken).toBe(token);
    expect(load({})).not.toHaveProperty('metricsToken');
    expect(errorOf({ METRICS_TOKEN: 'short' })).toContain('METRICS_TOKEN: must be at least 32 characters');
    expect(errorOf({ METRICS_TOKEN: `${token} x` })).toContain('METRICS_TOKEN: must be printable ASCII');
  });
});
