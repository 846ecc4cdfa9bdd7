import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { TEST_CONFIG } from '../test/harness';
import { AnalyticsClient, beforeLeaving, loggedIn, pageLoaded, resetAnalyticsForTests, track, type TrackMessage } from './analytics';

// The real fetch, before the test setup replaces it: these tests talk to a real HTTP server.
const realFetch = globalThis.fetch;

interface Received {
  contentType: string | undefined;
  body: { batch: TrackMessage[]; sentAt: string };
}

/** A Segment-style batch endpoint on loopback that keeps what it receives; its answers can be scripted. */
class BatchEndpoint {
  readonly received: Received[] = [];
  /** Statuses to answer, in order, before answering 200. */
  failures: number[] = [];
  hang = false;
  private server: Server | undefined;
  url = '';

  async start(): Promise<void> {
    this.server = createServer((request: IncomingMessage, response) => {
      let text = '';
      request.on('data', (chunk: Buffer) => (text += chunk.toString()));
      request.on('end', () => {
        if (this.hang) return;
        const status = this.failures.shift() ?? 200;
        if (status === 200) this.received.push({ contentType: request.headers['content-type'], body: JSON.parse(text) as Received['body'] });
        response.writeHead(status, { 'access-control-allow-origin': '*' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1/batch`;
  }

  stop(): Promise<void> {
    this.server?.closeAllConnections();
    return new Promise((resolve) => this.server?.close(() => resolve()));
  }

  events(): TrackMessage[] {
    return this.received.flatMap((entry) => entry.body.batch);
  }
}

const endpoint = new BatchEndpoint();
beforeAll(() => endpoint.start());
afterAll(() => endpoint.stop());

beforeEach(() => {
  vi.stubGlobal('fetch', realFetch);
  resetAnalyticsForTests();
  endpoint.received.length = 0;
  endpoint.failures = [];
  endpoint.hang = false;
});

const config = () => ({ ...TEST_CONFIG, analyticsUrl: endpoint.url });
const FORUM = { category: 'Discourse', object: 'Community SSO' };

describe('analytics (spec §9, decision 0021)', () => {
  it('sends the forum’s events to the batch endpoint as Segment track calls, under one kept visitor id', async () => {
    window.history.replaceState(null, '', '/discourse-sso?sso=secret-payload&sig=abc');
    pageLoaded(config(), FORUM);
    loggedIn(config(), FORUM);
    await beforeLeaving(config());
    await vi.waitFor(() => expect(endpoint.events()).toHaveLength(2));
    const [loaded, signedIn] = endpoint.events();
    expect(loaded).toMatchObject({ type: 'track', event: 'Loaded', properties: FORUM, context: { page: { path: '/discourse-sso' } } });
    expect(signedIn).toMatchObject({ type: 'track', event: 'Logged In', properties: FORUM });
    expect(loaded?.anonymousId).toBe(signedIn?.anonymousId);
    expect(loaded?.messageId).not.toBe(signedIn?.messageId);
    // The address's query (the forum payload, emailed tokens) never leaves the page.
    expect(JSON.stringify(endpoint.received)).not.toContain('secret-payload');
    // A "simple" request: no CORS preflight to the analytics site.
    expect(endpoint.received[0]?.contentType).toBe('text/plain');
    expect(document.cookie).toContain(`ajs_anonymous_id_test=${loaded?.anonymousId ?? ''}`);
  });

  it('keeps the visitor id from its cookie', async () => {
    document.cookie = 'ajs_anonymous_id_test=kept-visitor-id; path=/';
    track(config(), 'Terms Agreed', FORUM);
    await vi.waitFor(() => expect(endpoint.events()).toHaveLength(1));
    expect(endpoint.events()[0]?.anonymousId).toBe('kept-visitor-id');
  });

  it('sends at most 10 events per batch', async () => {
    for (let i = 0; i < 23; i += 1) track(config(), `Event ${i}`);
    await vi.waitFor(() => expect(endpoint.events()).toHaveLength(23));
    expect(endpoint.received.map((entry) => entry.body.batch.length).sort((a, b) => b - a)).toEqual([10, 10, 3]);
  });

  it('keeps each batch within 64 KB and drops an event over 500 KB', async () => {
    const blob = 'x'.repeat(20 * 1024);
    for (let i = 0; i < 5; i += 1) track(config(), 'Big', { blob });
    track(config(), 'Huge', { blob: 'y'.repeat(600 * 1024) });
    await vi.waitFor(() => expect(endpoint.events()).toHaveLength(5));
    for (const entry of endpoint.received) expect(JSON.stringify(entry.body).length).toBeLessThanOrEqual(64 * 1024);
    expect(endpoint.received.length).toBeGreaterThanOrEqual(2);
    expect(endpoint.events().map((event) => event.event)).not.toContain('Huge');
  });

  it('tries a batch again after a server failure or a rate limit, and never after a refusal', async () => {
    const client = new AnalyticsClient({ endpoint: endpoint.url, anonymousId: 'visitor', retryDelayMs: () => 5 });
    endpoint.failures = [503, 429];
    client.track('Retried');
    await vi.waitFor(() => expect(endpoint.events().map((event) => event.event)).toEqual(['Retried']));

    endpoint.failures = [400];
    client.track('Refused');
    client.track('Refused too');
    await client.settled(1000);
    expect(endpoint.events().map((event) => event.event)).toEqual(['Retried']);
  });

  it('gives up after 10 retries', async () => {
    const delays: number[] = [];
    const client = new AnalyticsClient({ endpoint: endpoint.url, anonymousId: 'visitor', retryDelayMs: (attempt) => (delays.push(attempt), 1) });
    endpoint.failures = Array.from({ length: 11 }, () => 500);
    client.track('Never');
    await client.settled(3000);
    expect(delays).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(endpoint.events()).toEqual([]);
    expect(endpoint.failures).toEqual([]);
  });

  it('never keeps a screen waiting longer than 300 ms', async () => {
    endpoint.hang = true;
    track(config(), 'Slow');
    const started = Date.now();
    await beforeLeaving(config());
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('does nothing at all when no endpoint is configured', async () => {
    const spy = vi.fn(realFetch);
    vi.stubGlobal('fetch', spy);
    track(TEST_CONFIG, 'Nowhere');
    await beforeLeaving(TEST_CONFIG);
    expect(spy).not.toHaveBeenCalled();
    expect(document.cookie).not.toContain('ajs_anonymous_id');
  });
});
