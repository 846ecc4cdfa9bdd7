import { createHash, timingSafeEqual } from 'node:crypto';
import { API_BASE, CALLS, isErrorCode, type ErrorBody } from '@foyer/contract';
import type { FastifyBaseLogger, FastifyInstance, FastifyRequest } from 'fastify';
import { readMailBacklog } from '../health/health.repo.js';
import { CHECK_TIMEOUT_MS, withTimeout } from '../health/with-timeout.js';
import type { Metrics } from './metrics.js';
import { countLockedEmails } from './metrics.repo.js';

export const METRICS_PATH = '/metrics';
const SIGNIN_URL = API_BASE + CALLS.signin.path;
/** The route label of answers no route matched (pages of the web app, unknown paths). */
const UNMATCHED = 'unmatched';

/** Both sides hashed first: equal lengths for timingSafeEqual, and no length leaks by timing. */
function tokenMatches(given: string, expected: string): boolean {
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

function bearerOf(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  const match = typeof header === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  return match?.[1];
}

/** The code of an error answer: one of the contract's, so the label's values stay few. */
function errorCodeOf(payload: unknown): string | undefined {
  const text = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : undefined;
  if (text === undefined) return undefined;
  try {
    const code: unknown = (JSON.parse(text) as { errorMessage?: unknown }).errorMessage;
    return isErrorCode(code) ? code : undefined;
  } catch {
    return undefined;
  }
}

/** The shared state, read at scrape (like /healthz); NaN and foyer_database_up 0 when unreadable. */
async function readDatabaseGauges(app: FastifyInstance, metrics: Metrics, log: FastifyBaseLogger): Promise<void> {
  try {
    const now = app.clock.now();
    const [backlog, locked] = await withTimeout(Promise.all([readMailBacklog(app.db, now), countLockedEmails(app.db, now)]), CHECK_TIMEOUT_MS);
    metrics.mailDue.set(backlog.due);
    metrics.mailOldestDueAgeSeconds.set(backlog.oldestCreatedAt === null ? 0 : Math.max(0, now - backlog.oldestCreatedAt) / 1000);
    metrics.lockedEmails.set(locked);
    metrics.databaseUp.set(1);
  } catch (error) {
    log.warn({ err: error }, 'metrics: the database did not answer');
    for (const gauge of [metrics.mailDue, metrics.mailOldestDueAgeSeconds, metrics.lockedEmails]) gauge.set(Number.NaN);
    metrics.databaseUp.set(0);
  }
}

/**
 * Counts every answer into the metrics and serves them at /metrics to a scraper that presents
 * METRICS_TOKEN (decision 0018). Sign-in outcomes and rate-limit refusals are read from the
 * answers themselves, so they hold however the routes and the limits are implemented. Registered
 * before the features, so its hooks see every route.
 */
export function registerMetrics(app: FastifyInstance, metrics: Metrics, token: string): void {
  const signInCodes = new WeakMap<FastifyRequest, string>();

  app.addHook('onSend', (request, reply, payload, done) => {
    if (request.routeOptions.url === SIGNIN_URL && reply.statusCode >= 400) {
      const code = errorCodeOf(payload);
      if (code !== undefined) signInCodes.set(request, code);
    }
    done(null, payload);
  });

  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? UNMATCHED;
    const status = reply.statusCode;
    metrics.requestSeconds.observe({ method: request.method, route, status_code: String(status) }, reply.elapsedTime / 1000);
    if (status === 429) metrics.rateLimitRefusals.inc({ route });
    if (route === SIGNIN_URL && request.method === CALLS.signin.method) {
      metrics.signIns.inc({ outcome: status < 400 ? 'success' : (signInCodes.get(request) ?? `status${status}`) });
    }
    done();
  });

  app.get(METRICS_PATH, { schema: { hide: true } }, async (request, reply) => {
    void reply.header('cache-control', 'no-store');
    const given = bearerOf(request);
    if (given === undefined || !tokenMatches(given, token)) {
      request.log.info('metrics: missing or wrong token');
      const body: ErrorBody = { errorMessage: 'notSignedIn' };
      return reply.code(401).header('www-authenticate', 'Bearer realm="metrics"').send(body);
    }
    await readDatabaseGauges(app, metrics, request.log);
    return reply.header('content-type', metrics.registry.contentType).send(await metrics.registry.metrics());
  });
}
