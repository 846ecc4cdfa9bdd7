import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, dbUnavailable, type TestApp } from '../../../test/helpers.js';

/**
 * With a web build present, every path the app's router does not own must stay a plain 404: a
 * probe or a scraper pointed at a missing endpoint would otherwise read the page's 200 as health.
 */
describe.skipIf(dbUnavailable)('unknown reserved paths beside a built web app', () => {
  let webDist: string;
  let t: TestApp;

  beforeAll(async () => {
    webDist = await mkdtemp(join(tmpdir(), 'foyer-web-'));
    await writeFile(join(webDist, 'index.html'), '<!doctype html><html><head></head><body><div id="root"></div></body></html>');
    t = await createTestApp({ env: { WEB_DIST: webDist } });
  });
  afterAll(async () => {
    await t.close();
    await rm(webDist, { recursive: true, force: true });
  });

  it('serves the page for a page path (the control)', async () => {
    const page = await t.app.inject({ method: 'GET', url: '/no-such-page' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toContain('text/html');
  });

  it.each([
    '/api/no-such-call',
    '/api/account/nothing/deeper',
    '/static/nothing',
    '/static/lang/x',
    '/dev/nothing',
    '/metrics',
    '/readyz/x',
    '/livez/x',
    '/healthz/x',
  ])('answers 404 notFound in JSON for %s, never the page', async (url) => {
    for (const method of ['GET', 'HEAD'] as const) {
      const response = await t.app.inject({ method, url });
      expect(response.statusCode, `${method} ${url}`).toBe(404);
      expect(response.headers['content-type'], `${method} ${url}`).toContain('application/json');
      if (method !== 'HEAD') expect(response.json()).toEqual({ errorMessage: 'notFound' });
    }
  });
});
