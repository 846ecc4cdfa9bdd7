import { ErrorBody } from '@foyer/contract';
import type { FastifyBaseLogger } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { MIGRATIONS } from '../../db/migrate.js';
import { pingDatabase, readAppliedMigrations } from './health.repo.js';
import { CHECK_TIMEOUT_MS, withTimeout } from './with-timeout.js';

/** Kubernetes' names: liveness restarts a wedged process; readiness takes it out of the balancer. */
export const LIVEZ_PATH = '/livez';
export const READYZ_PATH = '/readyz';

export const NOT_READY_REASONS = ['databaseUnreachable', 'migrationsPending', 'mailWorkerStopped', 'mailWorkerStuck'] as const;
export type NotReadyReason = (typeof NOT_READY_REASONS)[number];

const LiveResponse = z.object({ status: z.literal('live') });
const ReadyResponse = z.object({
  status: z.enum(['ready', 'notReady']),
  /** Empty when ready; otherwise every check that failed. */
  reasons: z.array(z.enum(NOT_READY_REASONS)),
});

/**
 * Probes for orchestrators and load balancers (decision 0018), beside /healthz, which monitors read
 * for detail. /livez checks nothing but that the process answers: restarting an instance cannot
 * fix its database, so a database outage must not make every instance restart at once. /readyz
 * says whether this instance should get traffic.
 */
export const probeRoutes: FastifyPluginAsyncZod = async (app) => {
  const expected = MIGRATIONS.map(([name]) => name);

  const checkDatabase = async (log: FastifyBaseLogger): Promise<NotReadyReason[]> => {
    try {
      await withTimeout(pingDatabase(app.db), CHECK_TIMEOUT_MS);
    } catch (error) {
      log.warn({ reason: error instanceof Error ? error.message : String(error) }, 'readiness: database unreachable');
      return ['databaseUnreachable'];
    }
    try {
      const applied = new Set(await withTimeout(readAppliedMigrations(app.db), CHECK_TIMEOUT_MS));
      // Migrations a newer version applied are no reason: they only add to what this one uses.
      const pending = expected.filter((name) => !applied.has(name));
      if (pending.length === 0) return [];
      log.warn({ pending }, 'readiness: migrations not applied');
    } catch (error) {
      // No bookkeeping table yet: nothing was migrated.
      log.warn({ err: error }, 'readiness: migrations could not be read');
    }
    return ['migrationsPending'];
  };

  const checkMail = (): NotReadyReason[] => {
    const state = app.mail.state();
    if (state === 'stopped') return ['mailWorkerStopped'];
    if (state === 'stuck') return ['mailWorkerStuck'];
    // Without SMTP_URL the worker never runs by design: mail waits in the outbox (decision 0009),
    // the same on every instance, so taking this one out of the balancer would help nothing.
    return [];
  };

  app.route({
    method: 'GET',
    url: LIVEZ_PATH,
    schema: { tags: ['operations'], summary: 'Liveness: the process answers; no dependency is checked', response: { 200: LiveResponse } },
    handler: async (_request, reply) => reply.header('cache-control', 'no-store').send({ status: 'live' as const }),
  });

  app.route({
    method: 'GET',
    url: READYZ_PATH,
    schema: {
      tags: ['operations'],
      summary: 'Readiness: the database answers, its migrations are applied and the mail worker runs',
      response: { 200: ReadyResponse, 500: ErrorBody, 503: ReadyResponse },
    },
    handler: async (request, reply) => {
      const reasons = [...(await checkDatabase(request.log)), ...checkMail()];
      reply.header('cache-control', 'no-store');
      return reply.code(reasons.length === 0 ? 200 : 503).send({ status: reasons.length === 0 ? 'ready' : 'notReady', reasons });
    },
  });
};
