import { HEALTH_PATH, HealthResponse } from '@foyer/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { z } from 'zod';
import { READ_ERRORS } from '../../lib/http-schemas.js';
import { pingDatabase, readMailBacklog } from './health.repo.js';
import { CHECK_TIMEOUT_MS, withTimeout } from './with-timeout.js';

/**
 * Due mail older than this means delivery is not keeping up (SMTP down, or no SMTP_URL where
 * mail should leave): readiness says degraded. The first retries come after 10 s and 20 s.
 */
export const MAIL_LATE_MS = 5 * 60_000;

type Health = z.infer<typeof HealthResponse>;

export const healthRoutes: FastifyPluginAsyncZod = async (app) => {
  const checkDatabase = async (): Promise<Pick<Health, 'database' | 'mail'>> => {
    await pingDatabase(app.db);
    const now = app.clock.now();
    const backlog = await readMailBacklog(app.db, now);
    const oldestDueAgeMs = backlog.oldestCreatedAt === null ? null : Math.max(0, now - backlog.oldestCreatedAt);
    return { database: 'ok', mail: { due: backlog.due, oldestDueAgeMs } };
  };

  app.route({
    method: 'GET',
    url: HEALTH_PATH,
    schema: {
      tags: ['operations'],
      summary: 'Readiness: the database, the mail backlog and Redis, for load balancers and monitors',
      // After READ_ERRORS: this route's 503 carries the health answer, not an error code.
      response: { ...READ_ERRORS, 200: HealthResponse, 503: HealthResponse },
    },
    handler: async (request, reply) => {
      reply.header('cache-control', 'no-store');
      const [database, redis] = await Promise.all([
        withTimeout(checkDatabase(), CHECK_TIMEOUT_MS).catch((error: unknown) => {
          // Probed every few seconds through an outage: one line each, without the stack.
          request.log.warn({ reason: error instanceof Error ? error.message : String(error) }, 'health check: database unreachable');
          const down: Pick<Health, 'database' | 'mail'> = { database: 'down' };
          return down;
        }),
        withTimeout(app.rateLimiter.health(), CHECK_TIMEOUT_MS).catch(() => 'down' as const),
      ]);
      if (redis === 'down') request.log.warn('health check: Redis does not answer; rate limits are off until it does');
      const oldestDueAgeMs = database.mail?.oldestDueAgeMs ?? null;
      const mailLate = oldestDueAgeMs !== null && oldestDueAgeMs > MAIL_LATE_MS;
      const degraded = database.database === 'down' || redis === 'down' || mailLate;
      const body: Health = { status: degraded ? 'degraded' : 'ok', ...database, ...(redis === undefined ? {} : { redis }) };
      return reply.code(database.database === 'down' ? 503 : 200).send(body);
    },
  });
};
