import pg from 'pg';
import type { TestProject } from 'vitest/node';

export const DEFAULT_TEST_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

declare module 'vitest' {
  export interface ProvidedContext {
    postgresAvailable: boolean;
    postgresUrl: string;
  }
}

function withoutPassword(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(unparseable TEST_DATABASE_URL)';
  }
}

/**
 * The server-postgres project's global setup: finds out once whether PostgreSQL answers. CI sets
 * REQUIRE_POSTGRES=1 and fails here; on a laptop without PostgreSQL the project is skipped with
 * one clear line instead of a wall of connection errors.
 */
export default async function setup(project: TestProject): Promise<void> {
  const url = process.env.TEST_DATABASE_URL ?? DEFAULT_TEST_DATABASE_URL;
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  let available = false;
  let reason = '';
  try {
    await client.connect();
    await client.query('select 1');
    available = true;
  } catch (error) {
    reason = error instanceof Error ? error.message : String(error);
  } finally {
    await client.end().catch(() => undefined);
  }
  if (!available) {
    if (process.env.REQUIRE_POSTGRES === '1') {
      throw new Error(`PostgreSQL not reachable at ${withoutPassword(url)} and REQUIRE_POSTGRES=1 (${reason})`);
    }
    console.warn(`PostgreSQL not reachable at ${withoutPassword(url)} — server-postgres tests are skipped`);
  }
  project.provide('postgresAvailable', available);
  project.provide('postgresUrl', url);
}
