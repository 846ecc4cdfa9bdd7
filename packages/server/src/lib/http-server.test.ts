import { connect, type Socket } from 'node:net';
import { API_BASE, CALLS, COOKIE_BASE_NAMES, HEALTH_PATH, XSRF_HEADER } from '@foyer/contract';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestApp, dbUnavailable, type TestApp } from '../../test/helpers.js';
import { randomToken } from './crypto.js';
import { MAX_ANSWERS_OWED_PER_CONNECTION } from './http-server.js';

const REQUEST_TIMEOUT_MS = 2000;
const SLOW_CLIENTS = 200;
const XSRF_TOKEN = randomToken();

interface SlowClient {
  socket: Socket;
  closedAt?: number;
  answer: string;
}

/**
 * Sends a sign-in's headers (with a valid XSRF pair, so the body is awaited rather than refused),
 * then its body one byte every 300 ms: a slowloris client.
 */
function slowBody(port: number): SlowClient {
  const socket = connect(port, '127.0.0.1');
  const client: SlowClient = { socket, answer: '' };
  socket.on('connect', () => {
    const headers = [
      `POST ${API_BASE}${CALLS.signin.path} HTTP/1.1`,
      'Host: localhost',
      'Content-Type: application/json',
      'Content-Length: 1000',
      `Cookie: ${COOKIE_BASE_NAMES.xsrf}=${XSRF_TOKEN}`,
      `${XSRF_HEADER}: ${XSRF_TOKEN}`,
    ];
    socket.write(`${headers.join('\r\n')}\r\n\r\n`);
    const drip = setInterval(() => socket.write('{'), 300);
    socket.on('close', () => clearInterval(drip));
  });
  socket.on('data', (chunk: Buffer) => (client.answer += chunk.toString()));
  socket.on('error', () => undefined);
  socket.on('close', () => (client.closedAt = Date.now()));
  return client;
}

/**
 * Decision 0011: slow clients cannot take the service: a new client is served at once while
 * hundreds of bodies arrive a byte at a time, and each of those is dropped (408) once the whole
 * request has not arrived within REQUEST_TIMEOUT_MS.
 */
describe.skipIf(dbUnavailable)('slow clients', () => {
  let t: TestApp | undefined;
  let clients: SlowClient[] = [];

  afterEach(async () => {
    for (const client of clients) client.socket.destroy();
    clients = [];
    await t?.close();
  });

  it('serves new clients promptly beside slow bodies, and drops those after the request timeout', async () => {
    t = await createTestApp({ env: { REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS), MAX_CONNECTIONS: '5000' } });
    expect(t.app.server.maxConnections).toBe(5000);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const address = t.app.server.address();
    if (address === null || typeof address === 'string') throw new Error('not listening on TCP');
    const base = `http://127.0.0.1:${address.port}`;

    const opened = Date.now();
    clients = Array.from({ length: SLOW_CLIENTS }, () => slowBody(address.port));
    await new Promise((resolve) => setTimeout(resolve, 700));

    for (const url of [HEALTH_PATH, API_BASE + CALLS.session.path]) {
      const started = Date.now();
      const response = await fetch(base + url);
      expect(response.status, url).toBeLessThan(500);
      expect(Date.now() - started, url).toBeLessThan(1000);
    }
    expect(clients.every((client) => client.closedAt === undefined)).toBe(true);

    // Node checks for expired requests every quarter of the timeout (at most 1 s): allow that.
    const limit = REQUEST_TIMEOUT_MS + 1000 + 1500;
    while (clients.some((client) => client.closedAt === undefined) && Date.now() - opened < limit) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(clients.filter((client) => client.closedAt === undefined)).toHaveLength(0);
    for (const client of clients) {
      expect((client.closedAt ?? Infinity) - opened).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 100);
      expect(client.answer).toMatch(/^HTTP\/1\.1 408 /);
    }
  });
});

/** Sends raw bytes and reads the whole answer until the server closes the connection. */
function rawExchange(port: number, request: Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    socket.on('connect', () => socket.write(request));
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString('latin1')));
    socket.on('error', reject);
    socket.on('close', () => resolve(answer));
    socket.setTimeout(5000, () => socket.destroy(new Error('no answer within 5 s')));
  });
}

describe.skipIf(dbUnavailable)("requests Node's HTTP parser refuses", () => {
  let t: TestApp | undefined;
  afterEach(async () => {
    await t?.close();
  });

  it('are answered with a 4xx in the contract shape, invalidRequest, and the connection closed', async () => {
    t = await createTestApp();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const address = t.app.server.address();
    if (address === null || typeof address === 'string') throw new Error('not listening on TCP');
    const cases: Array<[string, Buffer, number]> = [
      [
        'a raw 0xFF byte in the target',
        Buffer.concat([Buffer.from('GET /sign-in?from='), Buffer.from([0xff]), Buffer.from(' HTTP/1.1\r\nHost: localhost\r\n\r\n')]),
        400,
      ],
      ['a DEL byte in a header value', Buffer.from('GET /sign-in HTTP/1.1\r\nHost: localhost\r\nX-Request-Id: a\x7fb\r\n\r\n', 'latin1'), 400],
      [
        'both Content-Length and Transfer-Encoding',
        Buffer.from(
          `POST ${API_BASE}${CALLS.signin.path} HTTP/1.1\r\nHost: localhost\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`,
        ),
        400,
      ],
      ['headers past the limit', Buffer.from(`GET /sign-in HTTP/1.1\r\nHost: localhost\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`), 431],
      // Node answers these two itself unless told otherwise: an empty 400 and an empty 417.
      ['an HTTP/1.1 request without Host', Buffer.from(`GET ${API_BASE}${CALLS.session.path} HTTP/1.1\r\n\r\n`), 400],
      [
        'an expectation other than 100-continue',
        Buffer.from(
          `POST ${API_BASE}${CALLS.signin.path} HTTP/1.1\r\nHost: localhost\r\nExpect: 200-ok\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}`,
        ),
        417,
      ],
    ];
    for (const [name, request, status] of cases) {
      const answer = await rawExchange(address.port, request);
      const [head = '', body] = answer.split('\r\n\r\n');
      expect(head.split('\r\n')[0], name).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
      expect(head.toLowerCase(), name).toContain('content-type: application/json');
      // The security headers of every answer, though no hook runs for these.
      expect(head.toLowerCase(), name).toContain("content-security-policy: default-src 'self'");
      expect(head.toLowerCase(), name).toContain('x-content-type-options: nosniff');
      expect(JSON.parse(body ?? ''), name).toEqual({ errorMessage: 'invalidRequest' });
    }
  });
});

/**
 * Decision 0011: a request that arrives once the service began to stop (on a connection that was
 * open before) is refused as an outage is, in the contract's shape: a client or balancer retries it
 * elsewhere.
 */
describe.skipIf(dbUnavailable)('a request that arrives while the service stops', () => {
  it('gets 503 unavailable with Retry-After, its request id, no-store and Connection: close', async () => {
    const t = await createTestApp();
    let closing: Promise<void> | undefined;
    try {
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      const address = t.app.server.address();
      if (address === null || typeof address === 'string') throw new Error('not listening on TCP');
      const socket = connect(address.port, '127.0.0.1');
      let answer = '';
      socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
      const ended = new Promise<void>((resolve) => socket.on('close', () => resolve()));
      await new Promise<void>((resolve) => socket.on('connect', () => resolve()));
      // Headers begun, not ended: the connection is busy, so the stop does not close it as idle.
      socket.write(`GET ${HEALTH_PATH} HTTP/1.1\r\nHost: localhost\r\n`);
      await new Promise((resolve) => setTimeout(resolve, 100));
      closing = t.app.close();
      await new Promise((resolve) => setTimeout(resolve, 100));
      socket.write('\r\n');
      await ended;
      const [head = '', body] = answer.split('\r\n\r\n');
      const headers = head.toLowerCase();
      expect(head.split('\r\n')[0], answer).toMatch(/^HTTP\/1\.1 503 /);
      expect(JSON.parse(body ?? '')).toEqual({ errorMessage: 'unavailable' });
      expect(headers).toContain('retry-after: 5');
      expect(headers).toMatch(/x-request-id: \S+/);
      expect(headers).toContain('cache-control: no-store');
      expect(headers).toContain('connection: close');
      expect(headers).toContain("content-security-policy: default-src 'self'");
      expect(headers).toContain('referrer-policy: no-referrer');
    } finally {
      await (closing ?? t.close());
    }
  });
});

/** Sends `count` pipelined GETs of `path` on one connection at once; reads answers only if `read`. */
function pipelined(port: number, path: string, count: number, read: boolean) {
  const socket = connect(port, '127.0.0.1');
  const state = { answers: 0, closed: false, socket };
  let received = '';
  socket.on('connect', () => socket.write(`GET ${path} HTTP/1.1\r\nHost: localhost\r\n\r\n`.repeat(count)));
  socket.on('data', (chunk: Buffer) => {
    received += chunk.toString();
    state.answers = received.split('HTTP/1.1 200').length - 1;
  });
  // A hoarder reads nothing for a second, then looks at what it was sent.
  if (!read) {
    socket.pause();
    setTimeout(() => socket.resume(), 1000);
  }
  socket.on('error', () => undefined);
  socket.on('close', () => (state.closed = true));
  return state;
}

const until = async (condition: () => boolean, ms = 5000) => {
  const deadline = Date.now() + ms;
  while (!condition() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  return condition();
};

describe.skipIf(dbUnavailable)('pipelined requests (decision 0011)', () => {
  let t: TestApp | undefined;
  afterEach(async () => {
    await t?.close();
  });

  it(`answers a client that reads its answers, and closes one that owes more than ${MAX_ANSWERS_OWED_PER_CONNECTION} unread`, async () => {
    t = await createTestApp();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.server.address() as { port: number };

    const reader = pipelined(port, HEALTH_PATH, 20, true);
    expect(await until(() => reader.answers === 20)).toBe(true);
    expect(reader.closed).toBe(false);
    reader.socket.destroy();

    const hoarder = pipelined(port, '/api/openapi.json', 500, false);
    expect(await until(() => hoarder.closed)).toBe(true);
    expect(hoarder.answers).toBeLessThanOrEqual(MAX_ANSWERS_OWED_PER_CONNECTION);
    // The service goes on for everyone else.
    const other = pipelined(port, HEALTH_PATH, 1, true);
    expect(await until(() => other.answers === 1)).toBe(true);
    other.socket.destroy();
  });
});
