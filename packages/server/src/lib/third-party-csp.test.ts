import { RuntimeConfig } from '@foyer/contract';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildRuntimeConfig } from '../config.js';
import { createTestApp, dbUnavailable, testConfig } from '../../test/helpers.js';

const noLog = () => undefined;
const GTM = { GTM_ID: 'GTM-AB12CD3' };
const widget = (region: string) => ({ SUPPORT_WIDGET_APP_ID: 'ab12cd34', SUPPORT_WIDGET_REGION: region });

/** The policy's directives by name, each with its sources in order. */
async function policyOf(env: Record<string, string>): Promise<{ header: string; directives: Map<string, string[]> }> {
  const t = await createTestApp({ env });
  try {
    // The page itself and an API answer carry the same policy: it is worked out once at boot.
    const page = await t.app.inject({ method: 'GET', url: '/sign-in' });
    const api = await t.app.inject({ method: 'GET', url: '/healthz' });
    const header = String(page.headers['content-security-policy']);
    expect(api.headers['content-security-policy']).toBe(header);
    const directives = new Map(
      header
        .split(';')
        .map((part) => part.trim().split(/\s+/))
        .filter((words) => words[0] !== '')
        .map(([name = '', ...sources]) => [name, sources]),
    );
    return { header, directives };
  } finally {
    await t.close();
  }
}

describe.skipIf(dbUnavailable)('the Content-Security-Policy grows only by the configured third parties (decision 0025)', () => {
  /** The policy of this service alone (decisions 0015, 0021), what every configuration starts from. */
  let OWN: Record<string, string[]> = {};
  beforeAll(async () => {
    OWN = Object.fromEntries((await policyOf({})).directives);
  });

  it('without GTM_ID or a support widget, allows no third-party origin at all', async () => {
    const { header } = await policyOf({});
    expect(OWN).toEqual({
      'default-src': ["'self'"],
      'script-src': ["'self'"],
      'style-src': ["'self'"],
      'img-src': ["'self'", 'data:'],
      'font-src': ["'self'"],
      'connect-src': ["'self'"],
      // The test environment's local forum, whose terms page /discourse-terms frames (decision 0021).
      'frame-src': ["'self'", 'http://localhost:4200'],
      'frame-ancestors': ["'none'"],
      'object-src': ["'none'"],
      'base-uri': ["'none'"],
      'form-action': ["'self'"],
    });
    expect(header).not.toMatch(/googletagmanager|intercom|unsafe-inline|https:|wss:|blob:|media-src/);
  });

  it('with GTM_ID, adds the tag manager’s origin to script-src, img-src and connect-src, and nothing else', async () => {
    const { header, directives } = await policyOf(GTM);
    expect(Object.fromEntries(directives)).toEqual({
      ...OWN,
      'script-src': ["'self'", 'https://www.googletagmanager.com'],
      'img-src': ["'self'", 'data:', 'https://www.googletagmanager.com'],
      'connect-src': ["'self'", 'https://www.googletagmanager.com'],
    });
    // The loader is the page's own script: no nonce, no 'unsafe-inline', no 'unsafe-eval'.
    expect(header).not.toMatch(/unsafe-|nonce-|intercom/);
  });

  it('with the widget in eu, adds that region’s hosts only, and inline styles for its frames', async () => {
    const { header, directives } = await policyOf(widget('eu'));
    expect(Object.fromEntries(directives)).toEqual({
      ...OWN,
      'script-src': ["'self'", 'https://widget.intercom.io', 'https://js.intercomcdn.com'],
      'style-src': ["'self'", "'unsafe-inline'"],
      'img-src': [
        "'self'",
        'data:',
        'blob:',
        'https://js.intercomcdn.com',
        'https://gifs.intercomcdn.com',
        'https://video-messages.intercomcdn.com',
        'https://uploads.intercomusercontent.com',
        'https://static.intercomassets.eu',
        'https://downloads.intercomcdn.eu',
        'https://messenger-apps.eu.intercom.io',
      ],
      'font-src': ["'self'", 'https://js.intercomcdn.com', 'https://fonts.intercomcdn.com'],
      'connect-src': [
        "'self'",
        'https://api-iam.eu.intercom.io',
        'https://nexus-europe-websocket.intercom.io',
        'wss://nexus-europe-websocket.intercom.io',
        'https://uploads.eu.intercomcdn.com',
        'https://uploads.intercomcdn.eu',
        'https://uploads.intercomusercontent.com',
      ],
      'media-src': ["'self'", 'https://js.intercomcdn.com'],
      'form-action': ["'self'", 'https://api-iam.eu.intercom.io'],
    });
    // Scripts never run inline, whatever the widget needs for its styles.
    expect(directives.get('script-src')).not.toContain("'unsafe-inline'");
    expect(header).not.toMatch(/api-iam\.intercom\.io|\.au\.|nexus-websocket-a|googletagmanager/);
  });

  it('reaches the us and ap regions at their own API bases and sockets, never another region’s', async () => {
    const us = (await policyOf(widget('us'))).directives.get('connect-src');
    expect(us).toEqual([
      "'self'",
      'https://api-iam.intercom.io',
      'https://nexus-websocket-a.intercom.io',
      'wss://nexus-websocket-a.intercom.io',
      'https://nexus-websocket-b.intercom.io',
      'wss://nexus-websocket-b.intercom.io',
      'https://uploads.intercomcdn.com',
      'https://uploads.intercomusercontent.com',
    ]);
    const ap = await policyOf(widget('ap'));
    expect(ap.directives.get('connect-src')).toEqual([
      "'self'",
      'https://api-iam.au.intercom.io',
      'https://nexus-australia-websocket.intercom.io',
      'wss://nexus-australia-websocket.intercom.io',
      'https://uploads.au.intercomcdn.com',
      'https://uploads.intercomusercontent.com',
    ]);
    expect(ap.directives.get('form-action')).toEqual(["'self'", 'https://api-iam.au.intercom.io']);
    expect(ap.header).not.toMatch(/\.eu\b|intercomcdn\.eu|api-iam\.intercom\.io|googletagmanager/);
  });

  it('with both, allows each one’s sources once, beside the analytics origin', async () => {
    const { directives } = await policyOf({ ...GTM, ...widget('us'), ANALYTICS_URL: 'https://events.example.com/v1/batch' });
    expect(directives.get('script-src')).toEqual([
      "'self'",
      'https://www.googletagmanager.com',
      'https://widget.intercom.io',
      'https://js.intercomcdn.com',
    ]);
    expect(directives.get('connect-src')?.slice(0, 4)).toEqual([
      "'self'",
      'https://events.example.com',
      'https://www.googletagmanager.com',
      'https://api-iam.intercom.io',
    ]);
    for (const [name, sources] of directives) expect(new Set(sources).size, name).toBe(sources.length);
  });
});

describe('what the page is told about the third parties (decision 0025)', () => {
  it('carries the container id and the widget’s app id and region when configured, valid against the contract', () => {
    const runtime = buildRuntimeConfig(testConfig({ ...GTM, ...widget('ap') }), noLog);
    expect(runtime.tagManagerId).toBe('GTM-AB12CD3');
    expect(runtime.supportWidget).toEqual({ appId: 'ab12cd34', region: 'ap' });
    expect(RuntimeConfig.safeParse(runtime).success).toBe(true);
  });

  it('carries neither when they are not configured', () => {
    const runtime = buildRuntimeConfig(testConfig(), noLog);
    expect(runtime).not.toHaveProperty('tagManagerId');
    expect(runtime).not.toHaveProperty('supportWidget');
  });
});
