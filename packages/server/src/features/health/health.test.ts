import { HEALTH_PATH } from '@foyer/contract';
import { describe, expect, it } from 'vitest';
import { createTestApp, dbUnavailable } from '../../../test/helpers.js';

describe.skipIf(dbUnavailable)('GET /healthz', () => {
  it('reports ok with a reachable database, and 503 down once it is gone', async () => {
    const t = await createTestApp();
    try {
      const ok = await t.app.inject({ method: 'GET', url: HEALTH_PATH });
      expect(ok.statusCode).toBe(200);
      expect(ok.json()).toEqual({ status: 'ok', database: 'ok' });
      expect(ok.headers['cache-control']).toBe('no-store');

      await t.db.destroy();
      const down = await t.app.inject({ method: 'GET', url: HEALTH_PATH });
      expect(down.statusCode).toBe(503);
      expect(down.json()).toEqual({ status: 'degraded', database: 'down' });
    } finally {
      await t.close();
    }
  });
});
