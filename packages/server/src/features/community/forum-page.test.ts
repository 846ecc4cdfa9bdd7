import { describe, expect, it } from 'vitest';
import { buildRuntimeConfig } from '../../config.js';
import { createTestApp, dbUnavailable, testConfig } from '../../../test/helpers.js';

const TERMS = '/dev/community-terms';
const noLog = () => undefined;

function directive(csp: string | undefined, name: string): string[] {
  const found = (csp ?? '')
    .split(';')
    .map((part) => part.trim().split(/\s+/))
    .find(([head]) => head === name);
  return found?.slice(1) ?? [];
}

describe('the community terms page and analytics in the configuration (decision 0021)', () => {
  it('points the page at the local terms page in local, else at the forum’s /tos, else at COMMUNITY_TERMS_URL', () => {
    expect(buildRuntimeConfig(testConfig({ FOYER_ENV: 'local' }), noLog).communityTermsUrl).toBe(`http://localhost:8080${TERMS}`);
    expect(buildRuntimeConfig(testConfig({ SERVER_URLS: JSON.stringify({ community: 'https://forum.example.com' }) }), noLog).communityTermsUrl).toBe(
      'https://forum.example.com/tos',
    );
    expect(buildRuntimeConfig(testConfig({ COMMUNITY_TERMS_URL: 'https://legal.example.com/community' }), noLog).communityTermsUrl).toBe(
      'https://legal.example.com/community',
    );
  });

  it('gives the page the analytics endpoint and the cookie domain only when configured', () => {
    expect(buildRuntimeConfig(testConfig(), noLog)).not.toHaveProperty('analyticsUrl');
    const runtime = buildRuntimeConfig(testConfig({ ANALYTICS_URL: 'https://events.example.com/v1/batch' }), noLog);
    expect(runtime.analyticsUrl).toBe('https://events.example.com/v1/batch');
  });

  it('refuses plain-http terms or analytics addresses where it is deployed', () => {
    const deployed = { FOYER_ENV: 'staging', PUBLIC_URL: 'https://auth.staging.foyer.app' };
    expect(() => testConfig({ ...deployed, ANALYTICS_URL: 'http://events.example.com/v1/batch' })).toThrow(/ANALYTICS_URL: must be https/);
    expect(() => testConfig({ ...deployed, COMMUNITY_TERMS_URL: 'http://legal.example.com/' })).toThrow(/COMMUNITY_TERMS_URL: must be https/);
  });
});

describe.skipIf(dbUnavailable)('the policy grows by exactly the configured origins (decision 0021)', () => {
  it('frames the community terms origin and reaches the analytics origin, nothing more', async () => {
    const t = await createTestApp({
      env: { COMMUNITY_TERMS_URL: 'https://forum.example.com/tos', ANALYTICS_URL: 'https://events.example.com/v1/batch' },
    });
    const csp = (await t.app.inject({ method: 'GET', url: '/healthz' })).headers['content-security-policy'] as string;
    expect(directive(csp, 'frame-src')).toEqual(["'self'", 'https://forum.example.com']);
    expect(directive(csp, 'connect-src')).toEqual(["'self'", 'https://events.example.com']);
    expect(directive(csp, 'frame-ancestors')).toEqual(["'none'"]);
    await t.close();

    const plain = await createTestApp();
    const plainCsp = (await plain.app.inject({ method: 'GET', url: '/healthz' })).headers['content-security-policy'] as string;
    expect(directive(plainCsp, 'connect-src')).toEqual(["'self'"]);
    await plain.close();
  });

  it('serves the stand-in terms page in local only, framable by Foyer’s own pages alone', async () => {
    const local = await createTestApp({ env: { FOYER_ENV: 'local' } });
    const page = await local.app.inject({ method: 'GET', url: TERMS });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.body).toContain('<h1>Foyer Community terms and conditions</h1>');
    expect(page.headers['x-frame-options']).toBe('SAMEORIGIN');
    const csp = page.headers['content-security-policy'] as string;
    expect(directive(csp, 'frame-ancestors')).toEqual(["'self'"]);
    expect(directive(csp, 'default-src')).toEqual(["'none'"]);
    // Same origin in local: the page's own policy needs nothing beyond 'self' to frame it.
    const pageCsp = (await local.app.inject({ method: 'GET', url: '/healthz' })).headers['content-security-policy'] as string;
    expect(directive(pageCsp, 'frame-src')).toEqual(["'self'"]);
    await local.close();

    const test = await createTestApp();
    expect((await test.app.inject({ method: 'GET', url: TERMS })).statusCode).toBe(404);
    await test.close();
  });
});
