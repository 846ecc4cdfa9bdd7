import { HEALTH_PATH, HealthResponse } from '@foyer/contract';
import { sql } from 'kysely';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { READ_ERRORS } from '../../lib/http-schemas.js';

/** A database that hangs counts as down: a monitor must get an answer, not a timeout. */
const DB_CHECK_TIMEOUT_MS = 2000;

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export const healthRoutes: FastifyPluginAsyncZod = async (app) => {
  app.route({
    method: 'GET',
    url: HEALTH_PATH,
    schema: {
      tags: ['operations'],
      summary: 'Liveness and database reachability, for load balancers and monitors',
      response: { 200: HealthResponse, 503: HealthResponse, ...READ_ERRORS },
    },
    handler: async (request, reply) => {
      reply.header('cache-control', 'no-store');
      try {
        await withTimeout(sql`select 1`.execute(app.db), DB_CHECK_TIMEOUT_MS);
        return { status: 'ok' as const, database: 'ok' as const };
      } catch (error) {
        request.log.error({ err: error }, 'health check: database unreachable');
        return reply.code(503).send({ status: 'degraded', database: 'down' });
      }
    },
  });
};
