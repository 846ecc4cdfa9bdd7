import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { OtlpCollector } from '../../packages/server/test/otlp-collector.ts';
import { launchBrowser, newContext, type RunningServer, startServer } from '../src/harness.ts';

/**
 * Decision 0026 in Chromium: an uncaught error of the page reaches the service, which sends it out
 * with its traces. The collector is the server tests' OTLP/HTTP stand-in.
 */
describe('error reporting', () => {
  const collector = new OtlpCollector();
  let server: RunningServer;
  let browser: Browser;

  before(async () => {
    await collector.start();
    server = await startServer({ OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint });
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
    await collector.stop();
  });

  test('an uncaught error on a link page arrives at the collector, scrubbed, with the route template', async () => {
    const context = await newContext(browser);
    const page = await context.newPage();
    const token = 'q9XkV2mB7nR4tY6uI1oP3aS5dF8gH0jK';
    await page.goto(`${server.url}/reset-password/${token}?from=%2Fhome`);
    await page.getByRole('heading', { name: 'Reset Password' }).waitFor();

    const reported = page.waitForResponse((response) => response.url().endsWith('/api/client/errors'));
    await page.evaluate(() => {
      setTimeout(() => {
        throw new Error('could not save for ann@example.com');
      });
    });
    assert.equal((await reported).status(), 200);

    const span = await collector.waitFor((candidate) => candidate.attributes['http.route'] === '/api/client/errors', 15_000);
    const event = span.events.find((candidate) => candidate.name === 'exception');
    assert.equal(event?.attributes['exception.message'], 'Error: could not save for [email]');
    assert.equal(event?.attributes['foyer.client.route'], '/reset-password/:token');
    assert.equal(span.resource['deployment.environment.name'], 'test');
    // The page's own load is traced by its route's template, never by the link's token.
    const opened = await collector.waitFor((candidate) => candidate.name === 'GET /reset-password/:token');
    assert.equal(opened.attributes['http.response.status_code'], 200);
    assert.ok(!JSON.stringify(collector.spans).includes(token), 'a span carries the link token');
    await context.close();
  });
});
