import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FLAG_DEFAULTS, OFREP_PATHS, RUNTIME_CONFIG_ELEMENT_ID } from '@foyer/contract';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, createTestDatabase, dbUnavailable, testConfig, type TestApp } from '../../../test/helpers.js';
import { OfrepServer, toggle } from '../../../test/ofrep-server.js';
import type { Database } from '../../db/database.js';
import { REUSE_MS } from './flag-service.js';

/**
 * Decision 0024: flags through OpenFeature, from an OFREP flag service when FLAGS_OFREP_URL is
 * set (here a local one that speaks the protocol), served to the page inline and over OFREP.
 */

const INDEX_HTML = '<!doctype html><html lang="en"><head><title>Foyer</title></head><body><div id="root"></div></body></html>';

function inlineFlags(html: string): Record<string, unknown> {
  const match = new RegExp(`<script type="application/json" id="${RUNTIME_CONFIG_ELEMENT_ID}">(.*?)</script>`, 's').exec(html);
  if (!match?.[1]) throw new Error('no runtime config in the page');
  return (JSON.parse(match[1]) as { flags: Record<string, unknown> }).flags;
}

const BULK = OFREP_PATHS.bulk;
const single = (key: string) => `${BULK}/${encodeURIComponent(key)}`;

describe('FLAGS_OFREP_URL', () => {
  const deployed = { FOYER_ENV: 'prod', PUBLIC_URL: 'https://auth.example.com', ARGON2_MEMORY_KIB: '19456', ARGON2_TIME: '2' };
  it('takes the flag service, its token and its timeout', () => {
    const config = testConfig({ FLAGS_OFREP_URL: 'https://flags.example.com/', FLAGS_OFREP_TOKEN: 'secret-token', FLAGS_OFREP_TIMEOUT_MS: '300' });
    expect(config.flagService).toEqual({ url: 'https://flags.example.com', token: 'secret-token', timeoutMs: 300 });
    expect(testConfig().flagService).toBeUndefined();
  });
  it('is https once deployed, unless the service runs on the same machine', () => {
    expect(() => testConfig({ ...deployed, FLAGS_OFREP_URL: 'http://flags.example.com' })).toThrow(/FLAGS_OFREP_URL: must be https/);
    expect(testConfig({ ...deployed, FLAGS_OFREP_URL: 'http://127.0.0.1:8016' }).flagService?.url).toBe('http://127.0.0.1:8016');
  });
  it('refuses a token without a service, and a timeout that would stall pages', () => {
    expect(() => testConfig({ FLAGS_OFREP_TOKEN: 'secret-token' })).toThrow(/FLAGS_OFREP_TOKEN: needs FLAGS_OFREP_URL/);
    expect(() => testConfig({ FLAGS_OFREP_URL: 'http://127.0.0.1:8016', FLAGS_OFREP_TIMEOUT_MS: '60000' })).toThrow(/FLAGS_OFREP_TIMEOUT_MS/);
  });
});

describe.skipIf(dbUnavailable)('feature flags (decision 0024)', () => {
  let database: Database;
  let webDist: string;
  let upstream: OfrepServer;
  let t: TestApp | undefined;

  beforeAll(async () => {
    database = await createTestDatabase();
    webDist = await mkdtemp(join(tmpdir(), 'foyer-flags-web-'));
    await writeFile(join(webDist, 'index.html'), INDEX_HTML);
  });
  afterAll(async () => {
    await database.destroy();
    await rm(webDist, { recursive: true, force: true });
  });
  beforeEach(async () => {
    upstream = await new OfrepServer({ 'discourse-sso': toggle(true), 'ai-alpha': toggle(false) }).start();
  });
  afterEach(async () => {
    await t?.close();
    t = undefined;
    await upstream.stop();
  });

  const start = async (env: Record<string, string> = {}) => {
    t = await createTestApp({ database, env: { WEB_DIST: webDist, ...env } });
    return t;
  };
  const withUpstream = (env: Record<string, string> = {}) => start({ FLAGS_OFREP_URL: upstream.url, ...env });
  const page = async (app: TestApp) => {
    const response = await app.app.inject({ method: 'GET', url: '/sign-in' });
    expect(response.statusCode).toBe(200);
    return inlineFlags(response.body);
  };

  it('without a flag service, serves the spec defaults with FLAGS over them, inline and over OFREP', async () => {
    const app = await start({ FLAGS: 'discourse-sso=false,requests-version=3' });
    expect(await page(app)).toEqual({ ...FLAG_DEFAULTS, 'discourse-sso': false, 'requests-version': 3 });
    const bulk = await app.app.inject({ method: 'POST', url: BULK, payload: { context: {} } });
    expect(bulk.statusCode).toBe(200);
    const flags = (bulk.json() as { flags: Array<{ key: string; value: unknown; reason: string }> }).flags;
    expect(flags.map((flag) => flag.key)).toEqual(Object.keys(FLAG_DEFAULTS));
    expect(flags.find((flag) => flag.key === 'discourse-sso')).toMatchObject({ value: false, reason: 'STATIC', variant: 'false' });
    expect(upstream.requests).toHaveLength(0);
  });

  it('serves a flag changed at the flag service on the next page, without a restart', async () => {
    const app = await withUpstream();
    expect((await page(app))['discourse-sso']).toBe(true);
    upstream.set('discourse-sso', toggle(false));
    upstream.set('requests-version', { variants: { v2: 2, v5: 5 }, defaultVariant: 'v5' });
    app.clock.advance(REUSE_MS);
    const flags = await page(app);
    expect(flags['discourse-sso']).toBe(false);
    expect(flags['requests-version']).toBe(5);
    // The context says nothing about the visitor: the environment only.
    const sent = upstream.requests.at(-1)?.body as { context: Record<string, unknown> };
    expect(sent.context).toEqual({ targetingKey: 'foyer-test', environment: 'test' });
  });

  it('asks the flag service once a second at most, however many pages are served', async () => {
    const app = await withUpstream();
    await Promise.all([page(app), page(app), page(app)]);
    await page(app);
    expect(upstream.evaluationsOf('discourse-sso')).toBe(1);
    app.clock.advance(REUSE_MS);
    await page(app);
    expect(upstream.evaluationsOf('discourse-sso')).toBe(2);
  });

  it('answers unknown flags at the service with FLAGS, then the spec defaults; the service wins where it answers', async () => {
    // Precedence (decision 0024): flag service, then FLAGS, then the spec's defaults.
    const app = await withUpstream({ FLAGS: 'discourse-sso=false,ai-playground=true' });
    const flags = await page(app);
    expect(flags['discourse-sso']).toBe(true); // the service answers: it wins over FLAGS
    expect(flags['ai-playground']).toBe(true); // unknown at the service: FLAGS
    expect(flags.personal_to_just_me).toBe(true); // unknown at the service, no FLAGS: the default
    const reasons = (await app.app.inject({ method: 'POST', url: BULK, payload: {} })).json() as { flags: Array<{ key: string; reason: string }> };
    expect(reasons.flags.find((flag) => flag.key === 'ai-playground')?.reason).toBe('DEFAULT');
  });

  it('falls back to the defaults when a flag has the wrong type at the service', async () => {
    upstream.set('discourse-sso', { variants: { yes: 'yes' }, defaultVariant: 'yes' });
    const app = await withUpstream();
    expect((await page(app))['discourse-sso']).toBe(true);
  });

  it('falls back to the defaults when the service is down, and the page does not wait for it', async () => {
    const app = await withUpstream({ FLAGS_OFREP_URL: 'http://127.0.0.1:9', FLAGS: 'ai-alpha=true' });
    expect(await page(app)).toEqual({ ...FLAG_DEFAULTS, 'ai-alpha': true });
  });

  it('answers within the timeout when the service accepts and never answers, then stops asking for a while', async () => {
    upstream.fail({ status: 'hang' });
    const app = await withUpstream({ FLAGS_OFREP_TIMEOUT_MS: '200' });
    const started = Date.now();
    expect(await page(app)).toEqual(FLAG_DEFAULTS);
    expect(Date.now() - started).toBeLessThan(2000);
    const asked = upstream.requests.length;
    app.clock.advance(REUSE_MS);
    const again = Date.now();
    expect(await page(app)).toEqual(FLAG_DEFAULTS);
    expect(Date.now() - again).toBeLessThan(150); // the cool-down: no second wait
    expect(upstream.requests).toHaveLength(asked);
  });

  it('falls back on a 500 of the service', async () => {
    upstream.set('ai-alpha', toggle(true));
    upstream.fail({ status: 500 });
    const app = await withUpstream();
    expect((await page(app))['ai-alpha']).toBe(false);
    upstream.recover();
    app.clock.advance(REUSE_MS);
    expect((await page(app))['ai-alpha']).toBe(true);
  });

  it('honours a 429 and its Retry-After: no request until then, the defaults meanwhile', async () => {
    upstream.set('ai-alpha', toggle(true));
    upstream.fail({ status: 429, retryAfter: '60' });
    const app = await withUpstream();
    expect((await page(app))['ai-alpha']).toBe(false);
    const asked = upstream.requests.length;
    upstream.recover();
    app.clock.advance(REUSE_MS);
    expect((await page(app))['ai-alpha']).toBe(false);
    expect(upstream.requests).toHaveLength(asked);
  });

  it('sends FLAGS_OFREP_TOKEN as a bearer token: refused (401, 403) means the defaults', async () => {
    await upstream.stop();
    upstream = await new OfrepServer({ 'ai-alpha': toggle(true) }, 'flag-service-token').start();
    const refused = await withUpstream({ FLAGS_OFREP_TOKEN: 'another-token' });
    expect((await page(refused))['ai-alpha']).toBe(false);
    expect(upstream.requests.at(-1)?.headers.authorization).toBe('Bearer another-token');
    await refused.close();
    const anonymous = await withUpstream();
    expect((await page(anonymous))['ai-alpha']).toBe(false);
    expect(upstream.requests.at(-1)?.headers.authorization).toBeUndefined();
    await anonymous.close();
    const allowed = await withUpstream({ FLAGS_OFREP_TOKEN: 'flag-service-token' });
    expect((await page(allowed))['ai-alpha']).toBe(true);
  });

  describe('the OFREP routes', () => {
    it('answers a bulk evaluation with an ETag, 304 for the same tag, 200 once a flag changed', async () => {
      const app = await withUpstream();
      const first = await app.app.inject({ method: 'POST', url: BULK, payload: { context: { targetingKey: 'ignored' } } });
      expect(first.statusCode).toBe(200);
      expect(first.headers['cache-control']).toBe('no-store');
      const etag = String(first.headers.etag);
      expect(etag).toMatch(/^"[\w-]+"$/);
      const same = await app.app.inject({ method: 'POST', url: BULK, headers: { 'if-none-match': `W/"other", ${etag}` }, payload: {} });
      expect(same.statusCode).toBe(304);
      expect(same.body).toBe('');
      upstream.set('discourse-sso', toggle(false));
      app.clock.advance(REUSE_MS);
      const changed = await app.app.inject({ method: 'POST', url: BULK, headers: { 'if-none-match': etag }, payload: {} });
      expect(changed.statusCode).toBe(200);
      expect(changed.headers.etag).not.toBe(etag);
      expect((changed.json() as { flags: Array<{ key: string; value: unknown }> }).flags).toContainEqual(
        expect.objectContaining({ key: 'discourse-sso', value: false }),
      );
    });

    it('answers a single evaluation, and 404 FLAG_NOT_FOUND for a flag the spec does not list', async () => {
      const app = await withUpstream();
      const one = await app.app.inject({ method: 'POST', url: single('discourse-sso'), payload: { context: {} } });
      expect(one.statusCode).toBe(200);
      expect(one.json()).toEqual({ key: 'discourse-sso', value: true, reason: 'STATIC', variant: 'on' });
      const braces = await app.app.inject({ method: 'POST', url: single('{hash}'), payload: {} });
      expect(braces.json()).toMatchObject({ key: '{hash}', value: false });
      const asked = upstream.requests.length;
      const unknown = await app.app.inject({ method: 'POST', url: single('admin-mode'), payload: {} });
      expect(unknown.statusCode).toBe(404);
      expect(unknown.json()).toEqual({ key: 'admin-mode', errorCode: 'FLAG_NOT_FOUND', errorDetails: 'no such flag' });
      // Never passed on: the service's other flags stay its own.
      expect(upstream.requests.slice(asked).some((request) => request.key === 'admin-mode')).toBe(false);
    });

    it('answers bad requests with OFREP 400s, not 5xx', async () => {
      const app = await start();
      const notJson = await app.app.inject({ method: 'POST', url: BULK, headers: { 'content-type': 'application/json' }, payload: '{oops' });
      expect(notJson.statusCode).toBe(400);
      expect(notJson.json()).toMatchObject({ errorCode: 'PARSE_ERROR' });
      const badContext = await app.app.inject({ method: 'POST', url: single('ai-alpha'), payload: { context: 'everyone' } });
      expect(badContext.statusCode).toBe(400);
      expect(badContext.json()).toMatchObject({ key: 'ai-alpha', errorCode: 'INVALID_CONTEXT' });
      const noBody = await app.app.inject({ method: 'POST', url: BULK });
      expect(noBody.statusCode).toBe(200);
      // A key the router refuses (over its length limit) names no flag, in OFREP's shape too.
      const longKey = 'a'.repeat(201);
      const tooLong = await app.app.inject({ method: 'POST', url: single(longKey), payload: {} });
      expect(tooLong.statusCode).toBe(404);
      expect(tooLong.json()).toEqual({ key: longKey, errorCode: 'FLAG_NOT_FOUND', errorDetails: 'no such flag' });
    });

    it('needs no XSRF token, and a GET is a 404, not the page', async () => {
      const app = await start();
      // inject() sends no cookie and no X-XSRF-TOKEN: the routes above already show it.
      const get = await app.app.inject({ method: 'GET', url: BULK });
      expect(get.statusCode).toBe(404);
      expect(get.headers['content-type']).toMatch(/json/);
    });
  });
});
