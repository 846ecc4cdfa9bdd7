import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.js';
import { ServerProcess } from '../test/server-process.js';

const load = (env: Record<string, string>) => loadConfig({ SECRET_KEY: 'a-secret-key-of-at-least-32-characters', ...env }, '/srv/foyer');

function errorOf(env: Record<string, string>): string {
  try {
    load(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).message;
  }
  throw new Error('expected a ConfigError');
}

describe('GTM_ID (decision 0025)', () => {
  it('is unset by default: no tag manager', () => {
    expect(load({})).not.toHaveProperty('tagManagerId');
  });

  it('takes a container id as Tag Manager shows it', () => {
    expect(load({ GTM_ID: 'GTM-AB12CD3' }).tagManagerId).toBe('GTM-AB12CD3');
  });

  it('refuses anything else, naming the variable', () => {
    for (const value of ['UA-12345-1', 'G-AB12CD3', 'gtm-ab12cd3', 'GTM-', 'GTM-AB12CD3&l=x', 'GTM-AB12CD3"><script>']) {
      expect(errorOf({ GTM_ID: value }), value).toContain('GTM_ID: must be a Google Tag Manager container id such as GTM-AB12CD3');
    }
  });
});

describe('SUPPORT_WIDGET_APP_ID and SUPPORT_WIDGET_REGION (decision 0025)', () => {
  it('are unset by default: no widget', () => {
    expect(load({})).not.toHaveProperty('supportWidget');
  });

  it('take an app id with one of the spec’s regions', () => {
    for (const region of ['us', 'eu', 'ap'] as const) {
      expect(load({ SUPPORT_WIDGET_APP_ID: 'ab12cd34', SUPPORT_WIDGET_REGION: region }).supportWidget).toEqual({ appId: 'ab12cd34', region });
    }
  });

  it('refuses a region that is not us, eu or ap, saying which ones are', () => {
    for (const region of ['au', 'EU', 'mars', 'us,eu']) {
      expect(errorOf({ SUPPORT_WIDGET_APP_ID: 'ab12cd34', SUPPORT_WIDGET_REGION: region }), region).toContain(
        "SUPPORT_WIDGET_REGION: must be one of us, eu, ap: the region the widget's workspace is hosted in",
      );
    }
  });

  it('never guesses the region, and refuses a region without an app id', () => {
    expect(errorOf({ SUPPORT_WIDGET_APP_ID: 'ab12cd34' })).toContain(
      'SUPPORT_WIDGET_REGION: is required when SUPPORT_WIDGET_APP_ID is set (us, eu or ap)',
    );
    expect(errorOf({ SUPPORT_WIDGET_REGION: 'eu' })).toContain('SUPPORT_WIDGET_APP_ID: is required when SUPPORT_WIDGET_REGION is set');
  });

  it('refuses an app id that is not letters and digits (it goes into the widget’s script address)', () => {
    for (const value of ['ab12/../x', 'ab 12', 'a'.repeat(33), 'ab12cd34?x=1']) {
      expect(errorOf({ SUPPORT_WIDGET_APP_ID: value, SUPPORT_WIDGET_REGION: 'us' }), value).toContain(
        "SUPPORT_WIDGET_APP_ID: must be the widget's app id: 1 to 32 letters and digits",
      );
    }
  });

  it('keeps the service from starting with a bad region, with the message on its error output', async () => {
    const server = await ServerProcess.start({ SUPPORT_WIDGET_APP_ID: 'ab12cd34', SUPPORT_WIDGET_REGION: 'mars' });
    try {
      await expect(server.ready(30_000)).rejects.toThrow(/server exited early \(1\)[\s\S]*SUPPORT_WIDGET_REGION: must be one of us, eu, ap/);
    } finally {
      await server.stop();
    }
  });
});
