import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { TEST_DB, createTestDatabase, dbUnavailable, migrateTestSchema } from '../../test/helpers.js';
import { MIGRATIONS, migrateToLatest } from './migrate.js';

describe.skipIf(dbUnavailable)('migrations', () => {
  it(`run on ${TEST_DB}, and again without effect`, async () => {
    const database = await createTestDatabase();
    try {
      expect(database.dialect).toBe(TEST_DB);
      // createTestDatabase migrated it; again, with the retry every test schema's migration has
      // for other files' schemas coming and going in the same database (3F000 seen in a run).
      await migrateTestSchema(database);
      const applied = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(database.db);
      expect(applied.rows.map((row) => row.name)).toEqual(MIGRATIONS.map(([name]) => name));
      // Times come back as numbers on both databases (pg's int8 parser).
      const now = Date.UTC(2030, 0, 1);
      await database.db
        .insertInto('login_failures')
        .values({ email_key: 'a@example.com', failures: 1, last_failure_at: now, locked_until: null })
        .execute();
      const row = await database.db.selectFrom('login_failures').selectAll().executeTakeFirstOrThrow();
      expect(row.last_failure_at).toBe(now);
    } finally {
      await database.destroy();
    }
  });

  it('start without migrating on a database a newer version migrated, and refuse one that lacks their own', async () => {
    const database = await createTestDatabase();
    try {
      const newer = '999-from-a-newer-version';
      await sql`insert into kysely_migration (name, timestamp) values (${newer}, ${new Date().toISOString()})`.execute(database.db);
      // A restarted instance of the older version during a rolling deploy, or after a rollback.
      expect(await migrateToLatest(database)).toEqual({ newerMigrations: [newer] });
      expect(await migrateToLatest(database)).toEqual({ newerMigrations: [newer] });

      // A database that lacks one of this version's own as well is no newer version's: refused.
      const [last] = MIGRATIONS.at(-1) ?? [''];
      await sql`delete from kysely_migration where name = ${last}`.execute(database.db);
      await expect(migrateToLatest(database)).rejects.toThrow('Migrations failed');
    } finally {
      await database.destroy();
    }
  });
});
