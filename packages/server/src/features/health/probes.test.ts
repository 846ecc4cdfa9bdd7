import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { postSignUp, signUpBody } from '../../../test/account-entry.js';
import { HOUR, createTestApp, dbUnavailable } from '../../../test/helpers.js';
import { SmtpCapture } from '../../../test/smtp-capture.js';
import { MIGRATIONS } from '../../db/migrate.js';
import { LIVEZ_PATH, READYZ_PATH } from './probes.routes.js';

describe.skipIf(dbUnavailable)('GET /livez and /readyz', () => {
  const smtp = new SmtpCapture();
  beforeAll(async () => smtp.start());
  afterAll(async () => smtp.stop());

  it('are live and ready with a reachable, migrated database and a running mail worker', async () => {
    const t = await createTestApp({ env: { SMTP_URL: smtp.url } });
    try {
      const live = await t.app.inject({ method: 'GET', url: LIVEZ_PATH });
      expect(live.statusCode).toBe(200);
      expect(live.json()).toEqual({ status: 'live' });
      const ready = await t.app.inject({ method: 'GET', url: READYZ_PATH });
      expect(ready.statusCode).toBe(200);
      expect(ready.json()).toEqual({ status: 'ready', reasons: [] });
      expect(ready.headers['cache-control']).toBe('no-store');
    } finally {
      await t.close();
    }
  });

  it('is not ready without the database, and still live: a restart would not bring it back', async () => {
    const t = await createTestApp();
    try {
      await t.db.destroy();
      const ready = await t.app.inject({ method: 'GET', url: READYZ_PATH });
      expect(ready.statusCode).toBe(503);
      expect(ready.json()).toEqual({ status: 'notReady', reasons: ['databaseUnreachable'] });
      expect((await t.app.inject({ method: 'GET', url: LIVEZ_PATH })).statusCode).toBe(200);
    } finally {
      await t.close();
    }
  });

  it('is not ready while a migration this version carries is not applied, and ignores newer ones', async () => {
    const t = await createTestApp();
    try {
      const last = MIGRATIONS.at(-1)?.[0] ?? '';
      await sql`update kysely_migration set name = ${'999-from-a-newer-version'} where name = ${last}`.execute(t.db);
      const pending = await t.app.inject({ method: 'GET', url: READYZ_PATH });
      expect(pending.statusCode).toBe(503);
      expect(pending.json()).toEqual({ status: 'notReady', reasons: ['migrationsPending'] });

      await sql`insert into kysely_migration (name, timestamp) values (${last}, ${new Date().toISOString()})`.execute(t.db);
      expect((await t.app.inject({ method: 'GET', url: READYZ_PATH })).json()).toEqual({ status: 'ready', reasons: [] });
    } finally {
      await t.close();
    }
  });

  it('is not ready once the mail worker stopped, or when it has not begun a round for too long', async () => {
    const stopped = await createTestApp({ env: { SMTP_URL: smtp.url } });
    try {
      await stopped.app.mail.stop();
      const answer = await stopped.app.inject({ method: 'GET', url: READYZ_PATH });
      expect(answer.statusCode).toBe(503);
      expect(answer.json()).toEqual({ status: 'notReady', reasons: ['mailWorkerStopped'] });
    } finally {
      await stopped.close();
    }

    // Polling once an hour: once the sign-up's mail is out, no round begins for an hour.
    const stuck = await createTestApp({ env: { SMTP_URL: smtp.url, MAIL_POLL_MS: String(HOUR) } });
    try {
      const body = signUpBody();
      expect((await postSignUp(stuck, body)).statusCode).toBe(200);
      await smtp.waitFor(body.email);
      // The round that sent it may still be ending, and a nudge may have asked for one more:
      // a round that began after the clock moved would count from there.
      await vi.waitFor(() => expect(stuck.app.mail.idle).toBe(true));
      stuck.clock.advance(HOUR);
      expect((await stuck.app.inject({ method: 'GET', url: READYZ_PATH })).statusCode).toBe(200);
      stuck.clock.advance(HOUR);
      expect((await stuck.app.inject({ method: 'GET', url: READYZ_PATH })).json()).toEqual({ status: 'notReady', reasons: ['mailWorkerStuck'] });
    } finally {
      await stuck.close();
    }
  });

  it('is ready without SMTP_URL: mail waits in the outbox by design, the same on every instance', async () => {
    const t = await createTestApp();
    try {
      expect(t.app.mail.state()).toBe('noTransport');
      expect((await t.app.inject({ method: 'GET', url: READYZ_PATH })).statusCode).toBe(200);
    } finally {
      await t.close();
    }
  });
});
