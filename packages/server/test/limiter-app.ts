import Fastify, { type FastifyInstance, type LightMyRequestResponse } from 'fastify';
import { registerErrorHandler } from '../src/lib/error-handler.js';
import { registerRateLimits, type RateRule } from '../src/lib/rate-limit.js';

/** The keys one request is counted by, rule by rule (as a route's rate limits work them out). */
export type Hits = Array<[rule: RateRule, key: string]>;

export interface LimiterApp {
  app: FastifyInstance;
  /** One request counted against the given rules. */
  hit(hits: Hits): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

/**
 * lib/rate-limit.ts on a bare Fastify instance: the plugin, its store (memory, or Redis at
 * `redisUrl`) and the one error handler, with a route that counts whatever rules a test gives it.
 */
export async function limiterApp(redisUrl?: string): Promise<LimiterApp> {
  const app = Fastify();
  registerErrorHandler(app);
  await registerRateLimits(app, { rateLimits: true, redisUrl });
  app.post<{ Body: { hits: Hits } }>('/hit', async (request, reply) => {
    await app.rateLimiter.enforce(request, reply, request.body.hits);
    return {};
  });
  await app.ready();
  return {
    app,
    hit: (hits) => app.inject({ method: 'POST', url: '/hit', payload: { hits } }),
    close: () => app.close(),
  };
}
