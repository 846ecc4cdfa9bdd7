import fastifyCookie from '@fastify/cookie';
import type { ErrorBody } from '@foyer/contract';
import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Kysely } from 'kysely';
import { buildRuntimeConfig, type Config } from './config.js';
import { registerJsonBody } from './lib/json-body.js';
import type { DB } from './db/schema.js';
import { createFlagService } from './features/flags/flag-service.js';
import { ofrepRouterRefusal, ofrepRoutes } from './features/flags/ofrep.routes.js';
import { healthRoutes } from './features/health/health.routes.js';
import { probeRoutes } from './features/health/probes.routes.js';
import { loadDictionaries, type Dictionaries } from './features/i18n/dictionaries.js';
import { i18nRoutes } from './features/i18n/i18n.routes.js';
import { registerMail } from './features/mail/mail.plugin.js';
import { createMetrics, timedPasswordHasher } from './features/metrics/metrics.js';
import { registerMetrics } from './features/metrics/metrics.plugin.js';
import { createRedirectPolicy } from './features/redirects/redirect-policy.js';
import { passwordRoutes } from './features/password/password.routes.js';
import { googleRoutes } from './features/google/google.routes.js';
import { communityRoutes } from './features/community/community.routes.js';
import { devicesRoutes } from './features/devices/devices.routes.js';
import { sessionsRoutes } from './features/sessions/sessions.routes.js';
import { setupRoutes } from './features/setup/setup.routes.js';
import { emailChangeRoutes } from './features/email-change/email-change.routes.js';
import { signinRoutes } from './features/signin/signin.routes.js';
import { signupRoutes } from './features/signup/signup.routes.js';
import { ssoRoutes } from './features/sso/sso.routes.js';
import { transferRoutes } from './features/transfer/transfer.routes.js';
import { clientErrorsRoutes } from './features/tracing/client-errors.routes.js';
import { registerHttpSpans } from './features/tracing/http-spans.js';
import { registerWeb } from './features/web/web.routes.js';
import { systemClock, type Clock } from './lib/clock.js';
import { registerErrorHandler } from './lib/error-handler.js';
import {
  answerClientError,
  capConnections,
  httpServerOptions,
  closeConnectionsWhileStopping,
  limitPipelining,
  refuseWhatNodeWouldAnswer,
} from './lib/http-server.js';
import { echoRequestId, loggerOptions, requestIdOptions, REQUEST_ID_HEADER, type LogStream } from './lib/logging.js';
import { createPasswordHasher, type PasswordHasher } from './lib/passwords.js';
import { registerOpenApi } from './lib/openapi.js';
import { registerRateLimits } from './lib/rate-limit.js';
import { registerSecurityHeaders, securityHeadersFor } from './lib/security-headers.js';
import { fastifyTrustProxy } from './lib/trust-proxy.js';
import { xsrfPlugin } from './lib/xsrf.js';

export interface AppOptions {
  config: Config;
  db: Kysely<DB>;
  clock?: Clock;
  passwords?: PasswordHasher;
  dictionaries?: Dictionaries;
  /** Log lines go here instead of stdout (tests read them). */
  logStream?: LogStream;
}

/** Our requests are a few hundred bytes; a small limit turns floods into cheap 413s. */
const BODY_LIMIT_BYTES = 64 * 1024;

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const { config, db } = options;
  const securityHeaders = securityHeadersFor(config);
  const app = Fastify({
    logger: loggerOptions(config, options.logStream),
    ...requestIdOptions(),
    bodyLimit: BODY_LIMIT_BYTES,
    ...httpServerOptions(config),
    trustProxy: fastifyTrustProxy(config.trustProxy),
    // Prototype-poisoning payloads are refused as bad input (400), never merged.
    onProtoPoisoning: 'error',
    onConstructorPoisoning: 'error',
    // Errors raised before routing (a malformed URL such as `/%`) bypass the error handler:
    // answer them in the same code-only shape.
    frameworkErrors: (_error, request, reply: FastifyReply) => {
      // An OFREP client reads OFREP's shapes only (decision 0024): a flag key the router refuses
      // (over its length) names no flag.
      const ofrep = ofrepRouterRefusal(request.url);
      if (ofrep !== undefined) {
        void reply.code(ofrep.status).headers(securityHeaders).header('cache-control', 'no-store').header(REQUEST_ID_HEADER, request.id).send(ofrep.body);
        return;
      }
      const body: ErrorBody = { errorMessage: 'invalidRequest' };
      // No hook runs for these, so the security headers and the no-store of every API answer
      // (security-headers.ts) are set here.
      void reply.code(400).headers(securityHeaders).header('cache-control', 'no-store').header(REQUEST_ID_HEADER, request.id).send(body);
    },
    // A request that arrives while the service stops is refused in the contract's shape
    // (closeConnectionsWhileStopping), not in Fastify's own.
    return503OnClosing: false,
    // What Node's HTTP parser refuses never reaches a route: answered in the same shape.
    clientErrorHandler: (error, socket) => answerClientError(error, socket, securityHeaders),
    // Emailed-link tokens travel as path parameters of up to 200 characters (contract Token).
    routerOptions: { maxParamLength: 200 },
  }).withTypeProvider<ZodTypeProvider>();
  capConnections(app, config);
  limitPipelining(app);
  refuseWhatNodeWouldAnswer(app, securityHeaders);
  closeConnectionsWhileStopping(app, securityHeaders);

  // Decision 0017: a call's body is JSON in UTF-8 (a SAML response is a form, sso.routes.ts).
  registerJsonBody(app);
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);

  app.decorate('config', config);
  app.decorate('db', db);
  app.decorate('clock', options.clock ?? systemClock);
  // Decision 0018: metrics exist only where a scraper can read them (METRICS_TOKEN set).
  const metrics = config.metricsToken === undefined ? undefined : createMetrics();
  const owned = options.passwords === undefined ? await createPasswordHasher(config.argon2) : undefined;
  const passwords = options.passwords ?? (owned as PasswordHasher);
  // The argon2 threads of a hasher the app made end with it; one it was given belongs to the giver.
  if (owned !== undefined) app.addHook('onClose', async () => owned.close());
  app.decorate('passwords', metrics === undefined ? passwords : timedPasswordHasher(passwords, metrics.argon2Seconds));
  app.decorate('redirects', createRedirectPolicy(config));
  app.decorate('dictionaries', options.dictionaries ?? loadDictionaries((message) => app.log.warn(message)));
  const flags = await createFlagService(config, app.clock, app.log);
  app.decorate('flags', flags);
  app.addHook('onClose', async () => flags.close());
  // Counters in Redis when REDIS_URL is set, else in this process; RATE_LIMITS=off counts nothing.
  await registerRateLimits(app, config);

  registerErrorHandler(app);
  echoRequestId(app);
  // Decision 0026: a span per request, only where traces are exported; before the routes, which it wraps.
  if (config.tracing !== undefined) registerHttpSpans(app);
  if (metrics !== undefined && config.metricsToken !== undefined) registerMetrics(app, metrics, config.metricsToken);
  await registerSecurityHeaders(app, config, securityHeaders);
  await app.register(fastifyCookie);
  await app.register(xsrfPlugin, { config });

  await registerOpenApi(app);

  await registerMail(app);
  await app.register(signinRoutes);
  await app.register(signupRoutes);
  await app.register(setupRoutes);
  await app.register(emailChangeRoutes);
  await app.register(passwordRoutes);
  await app.register(sessionsRoutes);
  await app.register(googleRoutes);
  await app.register(transferRoutes);
  await app.register(ssoRoutes);
  await app.register(communityRoutes);
  await app.register(devicesRoutes);
  await app.register(clientErrorsRoutes);
  await app.register(i18nRoutes);
  await app.register(ofrepRoutes);
  await app.register(healthRoutes);
  await app.register(probeRoutes);
  await registerWeb(
    app,
    buildRuntimeConfig(config, (message) => app.log.warn(message)),
  );

  return app;
}
