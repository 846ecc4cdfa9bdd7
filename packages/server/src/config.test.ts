import { FLAG_DEFAULTS, RuntimeConfig, SERVER_KINDS, serverUrlNotFoundMessage } from '@foyer/contract';
import { describe, expect, it } from 'vitest';
import { ConfigError, buildRuntimeConfig, loadConfig, lookupServerUrl } from './config.js';

const CWD = '/srv/foyer';
// Deployed environments require SECRET_KEY (decision 0012; tested in outbox.crypto.test.ts).
const load = (env: Record<string, string>) => loadConfig({ SECRET_KEY: 'a-secret-key-of-at-least-32-characters', ...env }, CWD);

function errorOf(env: Record<string, string>): string {
  try {
    load(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).message;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig', () => {
  it('works with no variables at all (npm start on a fresh machine)', () => {
    const config = load({});
    expect(config).toMatchObject({
      env: 'local',
      port: 8080,
      host: 'localhost',
      publicUrl: 'http://localhost:8080',
      publicHostname: 'localhost',
      database: { kind: 'sqlite', filename: '/srv/foyer/data/foyer.sqlite' },
      lockoutThreshold: 10,
      session: { idleMs: 7 * 86_400_000, absoluteMs: 30 * 86_400_000 },
      logLevel: 'info',
      argon2: { memoryCost: 19456, timeCost: 2, parallelism: 1 },
      trustProxy: false,
    });
    expect(config.flags).toEqual(FLAG_DEFAULTS);
    expect(config.webDist).toMatch(/packages\/web\/dist$/);
  });

  it('derives PUBLIC_URL from PORT locally and treats empty variables as unset', () => {
    expect(load({ PORT: '9000', PUBLIC_URL: '' }).publicUrl).toBe('http://localhost:9000');
  });

  it('is silent in tests by default', () => {
    expect(load({ FOYER_ENV: 'test' }).logLevel).toBe('silent');
  });

  it('reads the database kind from DATABASE_URL', () => {
    expect(load({ DATABASE_URL: 'postgres://u@db:5432/foyer' }).database).toEqual({ kind: 'postgres', connectionString: 'postgres://u@db:5432/foyer' });
    expect(load({ DATABASE_URL: 'postgresql://u@db/foyer' }).database.kind).toBe('postgres');
    expect(load({ DATABASE_URL: 'sqlite:./x.db' }).database).toEqual({ kind: 'sqlite', filename: '/srv/foyer/x.db' });
    expect(load({ DATABASE_URL: '/var/lib/foyer.db' }).database).toEqual({ kind: 'sqlite', filename: '/var/lib/foyer.db' });
    // A socket's empty host parses, as the driver reads it; what no driver can read stops the boot.
    expect(load({ DATABASE_URL: 'postgres://u@/foyer?host=/var/run/postgresql' }).database.kind).toBe('postgres');
    expect(() => load({ DATABASE_URL: 'postgres://[bad' })).toThrow('Invalid configuration: DATABASE_URL: is not a valid PostgreSQL connection URL');
  });

  it('applies FLAGS overrides over the spec defaults', () => {
    const flags = load({ FLAGS: 'discourse-sso=false, requests-version=2' }).flags;
    expect(flags['discourse-sso']).toBe(false);
    expect(flags['requests-version']).toBe(2);
  });

  it('refuses a FLAGS pair that would never take effect, naming it', () => {
    expect(() => load({ FLAGS: 'discourse-sso=false,unknown=true' })).toThrow(/FLAGS: unknown is not a flag \(.*discourse-sso.*\)/);
    expect(() => load({ FLAGS: 'discourse-sso=yes' })).toThrow('FLAGS: discourse-sso takes true or false, not "yes"');
    expect(() => load({ FLAGS: 'requests-version=two' })).toThrow('FLAGS: requests-version takes a number, not "two"');
    expect(() => load({ FLAGS: 'nonsense' })).toThrow('FLAGS: "nonsense" is not name=value');
  });

  it('names the variable in every error', () => {
    expect(errorOf({ PORT: 'eighty' })).toMatch(/^Invalid configuration: PORT: /);
    expect(errorOf({ PORT: '70000' })).toContain('PORT:');
    expect(errorOf({ FOYER_ENV: 'production' })).toContain('FOYER_ENV:');
    expect(errorOf({ FOYER_ENV: 'prod' })).toContain('PUBLIC_URL: is required when FOYER_ENV=prod');
    expect(errorOf({ FOYER_ENV: 'staging', PUBLIC_URL: 'http://auth.staging.foyer.app' })).toContain('PUBLIC_URL: must be https');
    expect(errorOf({ PUBLIC_URL: 'http://localhost:8080/app' })).toContain('PUBLIC_URL: must be an origin');
    // Credentials would travel in every mailed link and page, and the start-up line.
    const withCredentials = errorOf({ FOYER_ENV: 'staging', PUBLIC_URL: 'https://ops:hunter2@auth.example.test' });
    expect(withCredentials).toContain('PUBLIC_URL: must be an origin');
    expect(withCredentials).not.toContain('hunter2');
    expect(errorOf({ PUBLIC_URL: 'ftp://x' })).toContain('PUBLIC_URL:');
    expect(errorOf({ LOCKOUT_THRESHOLD: '0' })).toContain('LOCKOUT_THRESHOLD:');
    expect(errorOf({ SESSION_IDLE_DAYS: '40' })).toContain('SESSION_IDLE_DAYS: must not exceed SESSION_ABSOLUTE_DAYS');
    expect(errorOf({ LOG_LEVEL: 'loud' })).toContain('LOG_LEVEL:');
    expect(errorOf({ ARGON2_MEMORY_KIB: '1' })).toContain('ARGON2_MEMORY_KIB:');
    expect(errorOf({ FOYER_ENV: 'prod', PUBLIC_URL: 'https://auth.foyer.app', ARGON2_MEMORY_KIB: '1024', ARGON2_TIME: '1' })).toContain(
      'ARGON2_MEMORY_KIB: is below the OWASP minimum',
    );
    expect(errorOf({ SERVER_URLS: '{not json' })).toContain('SERVER_URLS: is not valid JSON');
    expect(errorOf({ SERVER_URLS: '{"marketing":"not a url"}' })).toContain('SERVER_URLS.marketing:');
    expect(errorOf({ SERVER_URLS: '{"nonsense":"https://x.example"}' })).toContain('SERVER_URLS');
  });

  it('lists every problem at once', () => {
    const message = errorOf({ PORT: 'x', LOCKOUT_THRESHOLD: 'y' });
    expect(message).toContain('PORT:');
    expect(message).toContain('LOCKOUT_THRESHOLD:');
  });
});

describe('server URLs per environment', () => {
  it('has an address for every kind locally, this service being app, auth and localisation', () => {
    const { serverUrls } = load({ PORT: '8099' });
    for (const kind of SERVER_KINDS) expect(serverUrls[kind], kind).toMatch(/^(https?|ws):\/\/localhost:\d+$/);
    expect(serverUrls).toMatchObject({
      app: 'http://localhost:8099',
      auth: 'http://localhost:8099',
      localisation: 'http://localhost:8099',
      marketing: 'http://localhost:3000',
      community: 'http://localhost:4200',
    });
  });

  it('uses the product domain when deployed, and binds all interfaces', () => {
    const prod = load({ FOYER_ENV: 'prod', PUBLIC_URL: 'https://auth.foyer.app/' });
    expect(prod.publicUrl).toBe('https://auth.foyer.app');
    expect(prod.host).toBe('0.0.0.0');
    expect(prod.serverUrls).toMatchObject({
      app: 'https://app.foyer.app',
      auth: 'https://auth.foyer.app',
      marketing: 'https://foyer.app',
      community: 'https://community.foyer.app',
    });
    const staging = load({ FOYER_ENV: 'staging', PUBLIC_URL: 'https://auth.staging.foyer.app' });
    expect(staging.serverUrls.app).toBe('https://app.staging.foyer.app');
  });

  it('lets SERVER_URLS override single kinds', () => {
    const config = load({ SERVER_URLS: '{"marketing":"https://www.example.com/","community":"https://forum.example.com"}' });
    expect(config.serverUrls.marketing).toBe('https://www.example.com');
    expect(config.serverUrls.community).toBe('https://forum.example.com');
    expect(config.serverUrls.app).toBe('http://localhost:8080');
  });

  it('refuses at boot a forum address its sign-ins could never answer to: plain http off this machine (decision 0021)', () => {
    const forum =
      (community: string, env: Record<string, string> = {}) =>
      () =>
        load({ DISCOURSE_CONNECT_SECRET: 'a-forum-secret', SERVER_URLS: JSON.stringify({ community }), ...env });
    expect(forum('http://community.example.com')).toThrow(/SERVER_URLS: community \(http:\/\/community\.example\.com\) must be https/);
    expect(forum('http://forum.example.com', { FOYER_ENV: 'prod', PUBLIC_URL: 'https://auth.example.com' })).toThrow(ConfigError);
    for (const community of [
      'https://forum.example.com',
      'http://localhost:4200',
      'http://forum.localhost:4200',
      'http://127.0.0.1:4200',
      'http://[::1]:4200',
    ]) {
      expect(forum(community)().serverUrls.community).toBe(community);
    }
    // Without the forum the address is only a redirect target, and plain http there is only refused as one.
    expect(load({ SERVER_URLS: '{"community":"http://community.example.com"}' }).serverUrls.community).toBe('http://community.example.com');
  });

  it("logs the spec's line for a kind the environment lacks (spec §8)", () => {
    const dev = load({ FOYER_ENV: 'dev', PUBLIC_URL: 'https://auth.dev.foyer.app' });
    const lines: string[] = [];
    expect(lookupServerUrl(dev, 'community', (line) => lines.push(line))).toBeUndefined();
    expect(lines).toEqual([serverUrlNotFoundMessage('community')]);
    expect(lines[0]).toBe('Server URL of type community not found');
  });
});

describe('buildRuntimeConfig', () => {
  const noLog = () => undefined;

  it('gives the browser only the allow-listed fields, valid against the contract', () => {
    const config = load({
      RECAPTCHA_SITE_KEY: 'site-key',
      RECAPTCHA_SECRET: 'very-secret',
      GOOGLE_CLIENT_ID: 'client.apps.googleusercontent.com',
      GOOGLE_CLIENT_SECRET: 'google-secret',
    });
    const runtime = buildRuntimeConfig(config, noLog);
    expect(RuntimeConfig.parse(runtime)).toEqual(runtime);
    expect(runtime).toMatchObject({ env: 'local', reCaptchaSiteKey: 'site-key', googleEnabled: true, defaultHome: '/home' });
    expect(JSON.stringify(runtime)).not.toContain('very-secret');
    expect(JSON.stringify(runtime)).not.toContain('googleusercontent');
    expect(JSON.stringify(runtime)).not.toContain('google-secret');
  });

  it('omits the bot check and Google when not configured', () => {
    // `local` offers Google through its stand-in (decision 0019); other environments need a client id.
    const runtime = buildRuntimeConfig(load({ FOYER_ENV: 'test' }), noLog);
    expect(runtime).not.toHaveProperty('reCaptchaSiteKey');
    expect(runtime.googleEnabled).toBe(false);
  });

  it('sends people to the app site by default once deployed', () => {
    const runtime = buildRuntimeConfig(load({ FOYER_ENV: 'prod', PUBLIC_URL: 'https://auth.foyer.app' }), noLog);
    expect(runtime.defaultHome).toBe('https://app.foyer.app');
  });

  it('gives the page its call timeout only when one is set (spec §9: 0 means none)', () => {
    expect(buildRuntimeConfig(load({}), noLog)).not.toHaveProperty('httpTimeoutMs');
    expect(buildRuntimeConfig(load({ HTTP_TIMEOUT_MS: '0' }), noLog)).not.toHaveProperty('httpTimeoutMs');
    expect(buildRuntimeConfig(load({ HTTP_TIMEOUT_MS: '15000' }), noLog).httpTimeoutMs).toBe(15000);
    for (const bad of ['-1', '1.5', 'soon', '600001']) expect(() => load({ HTTP_TIMEOUT_MS: bad }), bad).toThrow(/HTTP_TIMEOUT_MS/);
  });
});

describe('settings that must not weaken a deployment', () => {
  const prod = { FOYER_ENV: 'prod', PUBLIC_URL: 'https://auth.foyer.app', SECRET_KEY: 'k'.repeat(32) };

  it('refuses RATE_LIMITS=off in prod, and allows it elsewhere (the benchmark harness)', () => {
    expect(errorOf({ ...prod, RATE_LIMITS: 'off' })).toContain('RATE_LIMITS: must not be off when FOYER_ENV=prod');
    expect(load({ ...prod, FOYER_ENV: 'staging', RATE_LIMITS: 'off' }).rateLimits).toBe(false);
    expect(load({ RATE_LIMITS: 'off' }).rateLimits).toBe(false);
  });

  it('reads TRUST_PROXY as nothing, a hop count or proxy addresses', () => {
    expect(load({}).trustProxy).toBe(false);
    expect(load({ TRUST_PROXY: 'false' }).trustProxy).toBe(false);
    expect(load({ TRUST_PROXY: '0' }).trustProxy).toBe(false);
    expect(load({ TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(load({ TRUST_PROXY: '10.0.0.0/8, 192.168.1.10,fd00::/8 ,::1' }).trustProxy).toEqual(['10.0.0.0/8', '192.168.1.10', 'fd00::/8', '::1']);
  });

  it('refuses TRUST_PROXY=true, which trusts the address the client writes, saying what to give', () => {
    expect(errorOf({ TRUST_PROXY: 'true' })).toMatch(/TRUST_PROXY: .*number of proxies.*addresses\/CIDRs/);
  });

  it.each([['junk'], ['10.0.0.0/33'], ['0.0.0.0/0'], ['::/0'], ['10.0.0.1,,10.0.0.2'], ['10.0.0.1/8/8'], ['300.1.1.1'], ['11'], ['-1'], ['1.5']])(
    'refuses TRUST_PROXY=%s, naming the variable',
    (value) => {
      expect(errorOf({ TRUST_PROXY: value })).toContain('TRUST_PROXY: ');
    },
  );
});
