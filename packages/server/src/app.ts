import fastifyCookie from '@fastify/cookie';
import fastifySwagger from '@fastify/swagger';
import { API_BASE, type ErrorBody } from '@foyer/contract';
import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify';
import { jsonSchemaTransform, serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Kysely } from 'kysely';
import { buildRuntimeConfig, type Config } from './config.js';
import type { DB } from './db/schema.js';
import { healthRoutes } from './features/health/health.routes.js';
import { loadDictionaries, type Dictionaries } from './features/i18n/dictionaries.js';
import { i18nRoutes } from './features/i18n/i18n.routes.js';
import { registerMail } from './features/mail/mail.plugin.js';
import { createRedirectPolicy } from './features/redirects/redirect-policy.js';
import { passwordRoutes } from './features/password/password.routes.js';
import { sessionsRoutes } from './features/sessions/sessions.routes.js';
import { setupRoutes } from './features/setup/setup.routes.js';
import { signinRoutes } from './features/signin/signin.routes.js';
import { signupRoutes } from './features/signup/signup.routes.js';
import { registerWeb } from './features/web/web.routes.js';
import { systemClock, type Clock } from './lib/clock.js';
import { registerErrorHandler } from './lib/error-handler.js';
import { capConnections, httpServerOptions } from './lib/http-server.js';
import { loggerOptions } from './lib/logging.js';
import { createPasswordHasher, type PasswordHasher } from './lib/passwords.js';
import { DisabledRateLimitStore, MemoryRateLimitStore, RateLimiter, RedisRateLimitStore, type RateLimitStore } from './lib/rate-limit.js';
import { registerSecurityHeaders } from './lib/security-headers.js';
import { fastifyTrustProxy } from './lib/trust-proxy.js';
import { xsrfPlugin } from './lib/xsrf.js';

export interface AppOptions {
  config: Config;
  db: Kysely<DB>;
  clock?: Clock;
  passwords?: PasswordHasher;
  dictionaries?: Dictionaries;
  /** Rate-limit counters; default: Redis when REDIS_URL is set, else this process's memory. */
  rateLimitStore?: RateLimitStore;
}

/** Our requests are a few hundred bytes; a small limit turns floods into cheap 413s. */
const BODY_LIMIT_BYTES = 64 * 1024;

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const { config, db } = options;
  const app = Fastify({
    logger: loggerOptions(config),
    bodyLimit: BODY_LIMIT_BYTES,
    ...httpServerOptions(config),
    trustProxy: fastifyTrustProxy(config.trustProxy),
    // Prototype-poisoning payloads are refused as bad input (400), never merged.
    onProtoPoisoning: 'error',
    onConstructorPoisoning: 'error',
    // Errors raised before routing (a malformed URL such as `/%`) bypass the error handler:
    // answer them in the same code-only shape.
    frameworkErrors: (_error, _request, reply: FastifyReply) => {
      const body: ErrorBody = { errorMessage: 'invalidRequest' };
      // No hook runs for these, so the no-store of every API answer (security-headers.ts) is set here.
      void reply.code(400).header('cache-control', 'no-store').send(body);
    },
    // Emailed-link tokens travel as path parameters of up to 200 characters (contract Token).
    routerOptions: { maxParamLength: 200 },
  }).withTypeProvider<ZodTypeProvider>();
  capConnections(app, config);

  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);

  app.decorate('config', config);
  app.decorate('db', db);
  app.decorate('clock', options.clock ?? systemClock);
  app.decorate('passwords', options.passwords ?? (await createPasswordHasher(config.argon2)));
  app.decorate('redirects', createRedirectPolicy(config));
  app.decorate('dictionaries', options.dictionaries ?? loadDictionaries((message) => app.log.warn(message)));
  const { clock } = app;
  // Decision 0010: RATE_LIMITS=off (benchmark harness only) counts nothing; said at warn, since
  // it removes a protection.
  if (!config.rateLimits) app.log.warn('RATE_LIMITS=off: every rate limit is disabled');
  const rateStore =
    options.rateLimitStore ??
    (!config.rateLimits
      ? new DisabledRateLimitStore()
      : config.redisUrl === undefined
        ? new MemoryRateLimitStore(clock)
        : new RedisRateLimitStore(config.redisUrl));
  app.decorate(
    'rateLimiter',
    new RateLimiter(rateStore, clock, (error, rule) => app.log.warn({ err: error, rule: rule.name }, 'rate-limit store failed; request allowed')),
  );
  app.addHook('onClose', async () => app.rateLimiter.close());

  registerErrorHandler(app);
  await registerSecurityHeaders(app, config);
  await app.register(fastifyCookie);
  await app.register(xsrfPlugin, { config });

  // OpenAPI from the same zod schemas the routes validate with (STYLE.md: never by hand).
  await app.register(fastifySwagger, {
    openapi: {
      info: { title: 'Foyer account service', version: '1' },
      servers: [{ url: config.publicUrl }],
    },
    transform: jsonSchemaTransform,
  });
  app.get(`${API_BASE}/openapi.json`, { schema: { hide: true } }, async () => app.swagger());

  await registerMail(app);
  await app.register(signinRoutes);
  await app.register(signupRoutes);
  await app.register(setupRoutes);
  await app.register(passwordRoutes);
  await app.register(sessionsRoutes);
  await app.register(i18nRoutes);
  await app.register(healthRoutes);
  await registerWeb(app, buildRuntimeConfig(config, (message) => app.log.warn(message)));

  return app;
}
