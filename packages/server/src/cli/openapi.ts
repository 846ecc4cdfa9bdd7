import { realpathSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildApp } from '../app.js';
import { loadConfig } from '../config.js';
import { openDatabase } from '../db/database.js';
import { migrateToLatest } from '../db/migrate.js';
import { OPENAPI_FILE, formatOpenApi } from '../lib/openapi.js';

/** How to bring the committed document up to date; the staleness test names it. */
export const OPENAPI_COMMAND = 'npm run openapi -w @foyer/server';

/**
 * The OpenAPI document the routes declare, as committed (decision 0017). It builds the app as
 * a test does (a throwaway SQLite file, the `test` environment, no web build): nothing in the
 * document depends on the configuration, so any machine writes the same file.
 */
export async function generateOpenApi(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'foyer-openapi-'));
  const database = openDatabase({ kind: 'sqlite', filename: join(dir, 'foyer.sqlite') });
  try {
    await migrateToLatest(database);
    const config = loadConfig({
      FOYER_ENV: 'test',
      LOG_LEVEL: 'silent',
      WEB_DIST: join(dir, 'no-web-build'),
      ARGON2_MEMORY_KIB: '1024',
      ARGON2_TIME: '1',
    });
    const app = await buildApp({ config, db: database.db });
    try {
      await app.ready();
      return formatOpenApi(app.swagger());
    } finally {
      await app.close();
    }
  } finally {
    await database.destroy();
    await rm(dir, { recursive: true, force: true });
  }
}

// `npm run openapi -w @foyer/server`: writes packages/server/openapi.json.
const entry = process.argv[1];
if (entry !== undefined && realpathSync(entry) === fileURLToPath(import.meta.url)) {
  await writeFile(OPENAPI_FILE, await generateOpenApi());
  process.stdout.write(`wrote ${fileURLToPath(OPENAPI_FILE)}\n`);
}
