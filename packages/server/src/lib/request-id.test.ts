import { API_BASE, CALLS } from '@foyer/contract';
import { describe, expect, it } from 'vitest';
import { createTestApp, dbUnavailable, type TestApp } from '../../test/helpers.js';
import { REQUEST_ID_HEADER, REQUEST_ID_LOG_LABEL, requestIdOf } from './logging.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('requestIdOf', () => {
  it('keeps an incoming id of visible ASCII up to 128 characters', () => {
    for (const id of ['a', 'haproxy-7F000001:C0A8_5F2A', '0af7651916cd43dd8448eb211c80319c', 'x'.repeat(128)]) {
      expect(requestIdOf({ [REQUEST_ID_HEADER]: id })).toBe(id);
    }
  });

  it('replaces a missing, empty, long, spaced, repeated or control-laden one with a fresh UUID', () => {
    for (const headers of [
      {},
      { [REQUEST_ID_HEADER]: '' },
      { [REQUEST_ID_HEADER]: 'x'.repeat(129) },
      { [REQUEST_ID_HEADER]: 'a b' },
      { [REQUEST_ID_HEADER]: 'a\nlevel=fatal' },
      { [REQUEST_ID_HEADER]: ['a', 'b'] },
      { [REQUEST_ID_HEADER]: 'é' },
    ]) {
      expect(requestIdOf(headers)).toMatch(UUID);
    }
  });
});

/** An app whose JSON log lines are kept, at info, to be read back. */
async function loggedApp(): Promise<{ t: TestApp; lines: Array<Record<string, unknown>> }> {
  const lines: Array<Record<string, unknown>> = [];
  const t = await createTestApp({
    env: { LOG_LEVEL: 'info' },
    logStream: { write: (line) => lines.push(JSON.parse(line) as Record<string, unknown>) },
  });
  return { t, lines };
}

describe.skipIf(dbUnavailable)('X-Request-Id', () => {
  it('is honoured, echoed, and carried by every log line of its request', async () => {
    const { t, lines } = await loggedApp();
    try {
      const id = 'lb-3f2a9c-00017';
      // No XSRF pair: the refusal logs a line of its own besides the request's two.
      const response = await t.app.inject({ method: 'POST', url: API_BASE + CALLS.signin.path, headers: { [REQUEST_ID_HEADER]: id }, payload: {} });
      expect(response.statusCode).toBe(403);
      expect(response.headers[REQUEST_ID_HEADER]).toBe(id);

      const ofRequest = lines.filter((line) => line[REQUEST_ID_LOG_LABEL] === id);
      expect(ofRequest.map((line) => line.msg)).toEqual(['incoming request', 'xsrf check failed', 'request completed']);
      // No line logged while the request ran lacks the id or carries another.
      const others = lines.filter((line) => line[REQUEST_ID_LOG_LABEL] !== id);
      expect(others.filter((line) => line.req !== undefined || line.res !== undefined)).toEqual([]);
    } finally {
      await t.close();
    }
  });

  it('is made fresh when the incoming one is unacceptable, and then used the same way', async () => {
    const { t, lines } = await loggedApp();
    try {
      const response = await t.app.inject({ method: 'GET', url: '/healthz', headers: { [REQUEST_ID_HEADER]: 'two words' } });
      const id = response.headers[REQUEST_ID_HEADER];
      expect(id).toMatch(UUID);
      expect(lines.filter((line) => line[REQUEST_ID_LOG_LABEL] === id).map((line) => line.msg)).toEqual(['incoming request', 'request completed']);
      expect(JSON.stringify(lines)).not.toContain('two words');
    } finally {
      await t.close();
    }
  });

  it('is echoed on answers written before routing, such as a malformed URL', async () => {
    const { t } = await loggedApp();
    try {
      const response = await t.app.inject({ method: 'GET', url: '/%', headers: { [REQUEST_ID_HEADER]: 'bad-url-1' } });
      expect(response.statusCode).toBe(400);
      expect(response.headers[REQUEST_ID_HEADER]).toBe('bad-url-1');
    } finally {
      await t.close();
    }
  });
});
