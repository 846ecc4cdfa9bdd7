import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../config.js';
import { withGoogleStandIn } from './stand-in.boot.js';

const SECRET_KEY = 'a-secret-key-of-at-least-32-characters';
const load = (env: Record<string, string>) => loadConfig({ SECRET_KEY, ...env }, '/tmp');
const CLIENT = { GOOGLE_CLIENT_ID: 'client.apps.googleusercontent.com', GOOGLE_CLIENT_SECRET: 'google-secret' };

describe('Google configuration (decision 0019)', () => {
  it('is a confidential client of accounts.google.com by default', () => {
    expect(load({ FOYER_ENV: 'test', ...CLIENT }).google).toEqual({
      kind: 'client',
      issuer: 'https://accounts.google.com',
      clientId: CLIENT.GOOGLE_CLIENT_ID,
      clientSecret: CLIENT.GOOGLE_CLIENT_SECRET,
    });
  });

  it('takes any issuer that serves discovery, and refuses plain http where it is deployed', () => {
    expect(load({ FOYER_ENV: 'test', ...CLIENT, GOOGLE_ISSUER: 'http://127.0.0.1:9000' }).google).toMatchObject({ issuer: 'http://127.0.0.1:9000' });
    const prod = { FOYER_ENV: 'prod', PUBLIC_URL: 'https://auth.foyer.app', ...CLIENT, GOOGLE_ISSUER: 'http://idp.example' };
    expect(() => load(prod)).toThrow(/GOOGLE_ISSUER: must be https/);
  });

  it('requires the secret with the client id', () => {
    expect(() => load({ GOOGLE_CLIENT_ID: 'id' })).toThrow(ConfigError);
    expect(() => load({ GOOGLE_CLIENT_ID: 'id' })).toThrow(/GOOGLE_CLIENT_SECRET: is required when GOOGLE_CLIENT_ID is set/);
  });

  it('is off without a client id outside local, and the stand-in never starts there', async () => {
    const environments: Record<string, string>[] = [
      { FOYER_ENV: 'test' },
      { FOYER_ENV: 'prod', PUBLIC_URL: 'https://auth.foyer.app' },
      { FOYER_ENV: 'staging', PUBLIC_URL: 'https://a.b.c' },
    ];
    for (const env of environments) {
      const config = load(env);
      expect(config.google).toBeUndefined();
      const booted = await withGoogleStandIn(config);
      expect(booted.standIn).toBeUndefined();
      expect(booted.config).toBe(config);
    }
  });

  it('starts the stand-in locally without a client id, and points Google sign-in at it', async () => {
    const config = load({ FOYER_ENV: 'local', PORT: '8080', GOOGLE_STAND_IN_PORT: '0' });
    expect(config.google).toEqual({ kind: 'standIn', port: 0 });
    const { config: booted, standIn } = await withGoogleStandIn(config);
    try {
      expect(standIn).toBeDefined();
      expect(booted.google).toMatchObject({ kind: 'client', issuer: standIn?.issuer, clientId: 'foyer-local' });
      const discovery = await fetch(`${standIn?.issuer ?? ''}/.well-known/openid-configuration`);
      expect(await discovery.json()).toMatchObject({ issuer: standIn?.issuer, code_challenge_methods_supported: ['S256'] });
    } finally {
      await standIn?.close();
    }
  });

  it('starts no stand-in on a bind beyond loopback: Google sign-in is off, with a reason for the log', async () => {
    for (const host of ['0.0.0.0', '::', '192.0.2.10']) {
      const config = load({ FOYER_ENV: 'local', HOST: host, GOOGLE_STAND_IN_PORT: '0' });
      const booted = await withGoogleStandIn(config);
      expect(booted.standIn, host).toBeUndefined();
      expect(booted.config.google, host).toBeUndefined();
      expect(booted.refused, host).toContain(`HOST=${host} is not a loopback address`);
    }
    const { standIn } = await withGoogleStandIn(load({ FOYER_ENV: 'local', HOST: '127.0.0.1', GOOGLE_STAND_IN_PORT: '0' }));
    try {
      expect(standIn).toBeDefined();
    } finally {
      await standIn?.close();
    }
  });

  it('uses a configured client locally instead of the stand-in', async () => {
    const config = load({ FOYER_ENV: 'local', ...CLIENT });
    expect(config.google?.kind).toBe('client');
    expect((await withGoogleStandIn(config)).standIn).toBeUndefined();
  });
});
