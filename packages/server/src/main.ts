import { buildApp } from './app.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { openDatabase } from './db/database.js';
import { migrateToLatest } from './db/migrate.js';
import { deleteExpiredSessions } from './features/sessions/sessions.repo.js';

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

async function main(): Promise<void> {
  const config = readConfig();
  const database = openDatabase(config.database);
  await migrateToLatest(database);
  const app = await buildApp({ config, db: database.db });

  const prune = async () => {
    try {
      const removed = await deleteExpiredSessions(database.db, Date.now(), config.session.idleMs);
      if (removed > 0) app.log.info({ removed }, 'expired sessions removed');
    } catch (error) {
      app.log.error({ err: error }, 'removing expired sessions failed');
    }
  };
  const pruneTimer = setInterval(() => void prune(), PRUNE_INTERVAL_MS);
  pruneTimer.unref();

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down');
    clearInterval(pruneTimer);
    try {
      await app.close();
      await database.destroy();
      process.exit(0);
    } catch (error) {
      app.log.error({ err: error }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));

  await app.listen({ port: config.port, host: config.host });
  await prune();
  app.log.info({ env: config.env, database: config.database.kind }, `Foyer is listening on ${config.publicUrl}`);
}

main().catch((error: unknown) => {
  console.error('Foyer failed to start:', error);
  process.exit(1);
});
