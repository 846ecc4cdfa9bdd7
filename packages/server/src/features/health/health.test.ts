import { HEALTH_PATH } from '@foyer/contract';
import { describe, expect, it } from 'vitest';
import { postSignUp, signUpBody } from '../../../test/account-entry.js';
import { MINUTE, createTestApp, dbUnavailable } from '../../../test/helpers.js';
import { TEST_REDIS_URL, redisAvailable } from '../../../test/redis.js';
import { MAIL_LATE_MS } from './health.routes.js';

const redis = !dbUnavailable && (await redisAvailable());

describe.skipIf(dbUnavailable)('GET /healthz', () => {
  it('reports ok with a reachable database and no mail due, and 503 down once the database is gone, logged in one warn line', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const t = await createTestApp({ env: { LOG_LEVEL: 'info' }, logStream: { write: (line) => lines.push(JSON.parse(line) as Record<string, unknown>) } });
    try {
      const ok = await t.app.inject({ method: 'GET', url: HEALTH_PATH });
      expect(ok.statusCode).toBe(200);
      expect(ok.json()).toEqual({ status: 'ok', database: 'ok', mail: { due: 0, oldestDueAgeMs: null } });
      expect(ok.headers['cache-control']).toBe('no-store');

      await t.db.destroy();
      const down = await t.app.inject({ method: 'GET', url: HEALTH_PATH });
      expect(down.statusCode).toBe(503);
      expect(down.json()).toEqual({ status: 'degraded', database: 'down' });
      // Probed every few seconds through an outage: a warning without the stack, not an error.
      const said = lines.filter((line) => line.msg === 'health check: database unreachable');
      expect(said.map((line) => line.level)).toEqual([40]);
      expect(JSON.stringify(said)).not.toContain('stack');
    } finally {
      await t.close();
    }
  });

  it('reports the mail backlog, and degraded (still 200) once due mail is older than the limit', async () => {
    // FOYER_ENV=test without SMTP_URL: queued mail stays in the outbox, as when SMTP is down.
    const t = await createTestApp();
    try {
      expect((await postSignUp(t, signUpBody())).statusCode).toBe(200);
      const fresh = await t.app.inject({ method: 'GET', url: HEALTH_PATH });
      expect(fresh.json()).toEqual({ status: 'ok', database: 'ok', mail: { due: 1, oldestDueAgeMs: 0 } });

      t.clock.advance(MAIL_LATE_MS + MINUTE);
      const late = await t.app.inject({ method: 'GET', url: HEALTH_PATH });
      expect(late.statusCode).toBe(200);
      expect(late.json()).toEqual({ status: 'degraded', database: 'ok', mail: { due: 1, oldestDueAgeMs: MAIL_LATE_MS + MINUTE } });
    } finally {
      await t.close();
    }
  });

  it('shows a Redis that does not answer as degraded: rate limits are off meanwhile', async () => {
    const t = await createTestApp({ env: { REDIS_URL: 'redis://127.0.0.1:1' } });
    try {
      const response = await t.app.inject({ method: 'GET', url: HEALTH_PATH });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toMatchObject({ status: 'degraded', database: 'ok', redis: 'down' });
    } finally {
      await t.close();
    }
  });

  it.skipIf(!redis)('reports a Redis that answers as ok', async () => {
    const t = await createTestApp({ env: { REDIS_URL: TEST_REDIS_URL } });
    try {
      const response = await t.app.inject({ method: 'GET', url: HEALTH_PATH });
      expect(response.json()).toMatchObject({ status: 'ok', redis: 'ok' });
    } finally {
      await t.close();
    }
  });
});
