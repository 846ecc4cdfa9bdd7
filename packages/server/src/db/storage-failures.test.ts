import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { postSignUp, signUpBody } from '../../test/account-entry.js';
import { TEST_DB, dbUnavailable, useTestApp } from '../../test/helpers.js';

/**
 * Decision 0011: a database that refuses writes for a reason of its own (SQLite's disk full, a
 * PostgreSQL standby after a failover) is an outage: 503 `unavailable` with Retry-After, never a
 * 500, and nothing half-written; when it passes, the same requests succeed without a restart.
 */
describe.skipIf(dbUnavailable)('a database that refuses every write', () => {
  const t = useTestApp({ env: { RATE_LIMITS: 'off' } });

  /** Makes every later write fail as the database itself would; returns what undoes it. */
  async function refuseWrites(): Promise<() => Promise<void>> {
    if (TEST_DB === 'sqlite') {
      // The file may not grow: what a full disk does (SQLITE_FULL), on this connection only.
      const { rows } = await sql<{ page_count: number }>`pragma page_count`.execute(t.db);
      await sql.raw(`pragma max_page_count = ${rows[0]?.page_count ?? 1}`).execute(t.db);
      return async () => {
        await sql`pragma max_page_count = 4294967294`.execute(t.db);
      };
    }
    // What a standby answers every write with after a failover (read_only_sql_transaction).
    await sql
      .raw(
        `create function refuse_as_standby() returns trigger language plpgsql as $$ begin raise exception 'cannot execute INSERT in a read-only transaction' using errcode = 'read_only_sql_transaction'; end $$`,
      )
      .execute(t.db);
    await sql.raw('create trigger refuse_as_standby before insert on users for each row execute function refuse_as_standby()').execute(t.db);
    return async () => {
      await sql.raw('drop trigger refuse_as_standby on users').execute(t.db);
      await sql.raw('drop function refuse_as_standby()').execute(t.db);
    };
  }

  it('answers sign-ups 503 with Retry-After while it lasts, writes none of them, and takes them again afterwards', async () => {
    const undo = await refuseWrites();
    const refused: string[] = [];
    try {
      // Each sign-up writes an account, its token, its sealed mail and an audit row: within a few
      // the file needs a page it may not have.
      for (let i = 0; i < 30; i++) {
        const body = signUpBody();
        const response = await postSignUp(t, body);
        expect([200, 503], response.body).toContain(response.statusCode);
        if (response.statusCode === 503) {
          expect(response.json()).toEqual({ errorMessage: 'unavailable' });
          expect(response.headers['retry-after']).toBe('5');
          refused.push(body.email);
        }
      }
      expect(refused.length).toBeGreaterThan(0);
    } finally {
      await undo();
    }
    expect(await t.db.selectFrom('users').select('id').where('email_key', 'in', refused).execute()).toEqual([]);
    const again = await postSignUp(t, signUpBody({ email: refused[0] }));
    expect(again.statusCode, again.body).toBe(200);
  });
});
