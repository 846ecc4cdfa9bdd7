import type { FastifyBaseLogger } from 'fastify';
import { buildApp } from './app.js';
import { bootFailureText } from './lib/boot-failure.js';
import { startIdleCollection } from './lib/idle-collection.js';
import { commonPasswordCount } from './lib/password-floor.js';
import { ConfigError, isDeployed, loadConfig, type Config } from './config.js';
import { openDatabase } from './db/database.js';
import { databaseReason, isDatabaseUnavailable } from './db/errors.js';
import { migrateToLatest } from './db/migrate.js';
import { deleteExpiredSessions } from './features/sessions/sessions.repo.js';
import { withGoogleStandIn } from './features/google/stand-in.boot.js';

const PRUNE_INTERVAL_MS = 60 * 60 * 1000;

function readConfig(): Config {
  try {
    return loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      // Fail fast at boot with the variables named (STYLE.md: config is parsed, typed, complete).
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  }
}

/**
 * Whether threadpool.cjs ran before the entry point (decision 0011). Without it libuv keeps 4
 * threads for signature checks, files and DNS together, whatever the cores: said at warn where deployed.
 */
function logThreadpool(log: FastifyBaseLogger, deployed: boolean): void {
  const size = process.env.UV_THREADPOOL_SIZE;
  if (size !== undefined && size !== '') {
    log.info({ threadpoolSize: Number(size) }, 'libuv threadpool size');
    return;
  }
  const message = 'UV_THREADPOOL_SIZE is not set: libuv keeps 4 threads; start with `node --require <server>/dist/threadpool.cjs` as npm start does';
  if (deployed) log.warn(message);
  else log.info(message);
}

async function main(): Promise<void> {
  // Decision 0019: locally, without GOOGLE_CLIENT_ID, Google sign-in goes to a stand-in provider.
  const { config, standIn, refused: standInRefused } = await withGoogleStandIn(readConfig());
  // The app's logger exists only once the app is built, after migrations; the pool needs its
  // listener from the start.
  const logger: { current?: FastifyBaseLogger } = {};
  // Decision 0026: the OpenTelemetry SDK is loaded only when a collector is configured. Nothing is
  // patched at load time (the spans come from hooks), so it may start here, before the app.
  const tracing =
    config.tracing === undefined
      ? undefined
      : (await import('./features/tracing/tracing.sdk.js')).startTracing({
          config: config.tracing,
          env: config.env,
          onDropped: (reason, spans) => logger.current?.warn({ reason, spans }, 'trace export gave up on a batch'),
        });
  const database = openDatabase(config.database, {
    timeouts: config.databaseTimeouts,
    // Decision 0011: a broken idle connection is replaced by the pool; worth a line, not a crash.
    // One line: pg-pool attaches the whole Client (its settings, socket and statements) to the error.
    onConnectionError: (error) => logger.current?.warn({ reason: databaseReason(error) }, 'database connection lost; it will be replaced'),
    // Decision 0029: WAL checkpoints, and their fsyncs, off the event loop.
    checkpointThread: {
      onError: (error) => logger.current?.warn({ err: error }, 'the SQLite checkpoint thread failed; SQLite checkpoints in the commits again'),
    },
  });
  const { newerMigrations } = await migrateToLatest(database);
  const app = await buildApp({ config, db: database.db });
  logger.current = app.log;
  if (newerMigrations.length > 0) {
    app.log.info({ newerMigrations }, 'the database holds migrations of a newer version (a rolling deploy or a rollback): started without migrating');
  }
  if (standIn !== undefined) {
    app.log.info({ issuer: standIn.issuer }, 'Google sign-in goes to the local stand-in provider (FOYER_ENV=local without GOOGLE_CLIENT_ID)');
  }
  if (standInRefused !== undefined) app.log.warn(standInRefused);
  logThreadpool(app.log, isDeployed(config.env));
  if (config.tracing !== undefined) {
    app.log.info({ collector: new URL(config.tracing.tracesUrl).origin, service: config.tracing.serviceName }, 'traces are exported over OTLP/HTTP');
  }

  const prune = async () => {
    try {
      const removed = await deleteExpiredSessions(database.db, Date.now(), config.session.idleMs);
      if (removed > 0) app.log.info({ removed }, 'expired sessions removed');
    } catch (error) {
      if (isDatabaseUnavailable(error)) app.log.warn({ reason: databaseReason(error) }, 'removing expired sessions failed: database unavailable');
      else app.log.error({ err: error }, 'removing expired sessions failed');
    }
  };
  const pruneTimer = setInterval(() => void prune(), PRUNE_INTERVAL_MS);
  pruneTimer.unref();
  // Decision 0029: a burst's garbage is given back once the service is idle again.
  const idleCollection = startIdleCollection(app.log);

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down');
    clearInterval(pruneTimer);
    idleCollection.stop();
    // Decision 0011: one deadline for the whole shutdown. Requests and mail still in flight when it
    // passes are cut off; mail not marked sent stays in the outbox and is sent again later.
    const deadline = setTimeout(() => {
      app.log.error({ graceMs: config.shutdownGraceMs }, 'shutdown did not finish in time; exiting');
      process.exit(1);
    }, config.shutdownGraceMs);
    deadline.unref();
    try {
      await app.close();
      // The last requests' spans: a collector answering 503 may hold this up to the deadline.
      await tracing?.shutdown();
      await standIn?.close();
      await database.destroy();
      process.exit(0);
    } catch (error) {
      app.log.error({ err: error }, 'shutdown failed');
      process.exit(1);
    }
  };
  // `on`, not `once`: a second signal during the stop (an impatient supervisor, Ctrl-C twice) must
  // not take Node's default action and cut off the answers still in flight; `closing` ignores it.
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));

  // Built before the first request, so no sign-up pays for it (decision 0014).
  app.log.debug({ commonPasswords: commonPasswordCount() }, 'password floor ready');
  await app.listen({ port: config.port, host: config.host });
  await prune();
  app.log.info({ env: config.env, database: config.database.kind }, `Foyer is listening on ${config.publicUrl}`);
}

main().catch((error: unknown) => {
  const text = bootFailureText(error);
  if (text === undefined) console.error('Foyer failed to start:', error);
  else console.error(`Foyer failed to start: ${text}`);
  process.exit(1);
});
