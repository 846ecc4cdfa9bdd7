import { sql, type Kysely } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { mailsTo, signedUp } from '../../../test/account-entry.js';
import { createTestApp, createTestDatabase, createTestUser, dbUnavailable, uniqueEmail, useTestApp } from '../../../test/helpers.js';
import { requestResetToken } from '../../../test/password.js';
import { SmtpCapture } from '../../../test/smtp-capture.js';
import type { Database } from '../../db/database.js';
import * as outboxEncryption from '../../db/migrations/006-outbox-encryption.js';
import { smtpTransport } from './mail.transports.js';
import { MailWorker } from './mail.worker.js';
import { deriveOutboxKey, outboxKeyOf, type OutboxKey } from './outbox.crypto.js';

/** Decision 0012: what a copy of the database shows of queued and delivered mail. */
describe.skipIf(dbUnavailable)('mail at rest', () => {
  const t = useTestApp();
  const smtp = new SmtpCapture();
  const workers: MailWorker[] = [];

  beforeAll(async () => smtp.start());
  afterAll(async () => smtp.stop());
  afterEach(async () => {
    for (const worker of workers.splice(0)) await worker.stop();
  });

  const rawRows = (to: string) => t.db.selectFrom('mail_outbox').selectAll().where('to_address', '=', to).execute();
  const deliver = async (key: OutboxKey) => {
    const worker = new MailWorker(
      { db: t.db, clock: t.clock, log: t.app.log, key },
      smtpTransport({ url: smtp.url, from: 'Foyer <no-reply@localhost>' }),
      { pollMs: 60_000 },
    );
    workers.push(worker);
    await worker.runOnce();
  };

  it('keeps no token, link or subject of a queued verification or reset mail in clear', async () => {
    const { email, token } = await signedUp(t);
    const account = await createTestUser(t);
    const resetToken = await requestResetToken(t, account.email);

    for (const [to, secret, path] of [
      [email, token, '/verify-email/'],
      [account.email, resetToken, '/reset-password/'],
    ] as const) {
      const rows = await rawRows(to);
      expect(rows).toHaveLength(1);
      const raw = JSON.stringify(rows);
      for (const clear of [secret, path, t.config.publicUrl, 'Foyer', 'http']) expect(raw, `${to}: ${clear}`).not.toContain(clear);
      expect(rows[0]?.sealed_content).toMatch(/^v1\./);
      // The mail itself is intact: the link opens with the key.
      expect((await mailsTo(t, to))[0]?.text_body).toContain(`${path}${secret}`);
    }
  });

  it('deletes the body once delivered, keeping who, what kind and when', async () => {
    const { email } = await signedUp(t);
    const [queued] = await rawRows(email);
    await deliver(outboxKeyOf(t.config));
    expect((await smtp.waitFor(email)).subject).toBe('Verify your email address for Foyer');
    expect(await rawRows(email)).toEqual([{ ...queued, sealed_content: null, sent_at: t.clock.now(), attempts: 1, locked_until: null, last_error: null }]);
  });

  it('fails closed with a wrong SECRET_KEY: nothing is sent, the mail is kept and goes out with the right key', async () => {
    const { email } = await signedUp(t);
    await deliver(deriveOutboxKey(Buffer.from('a-different-secret-key-of-32-characters')));
    const [failed] = await rawRows(email);
    expect(failed).toMatchObject({ sent_at: null, attempts: 1, sealed_content: expect.stringMatching(/^v1\./) as unknown });
    expect(failed?.last_error).toContain('SECRET_KEY');
    expect(smtp.messages.filter((message) => message.to.includes(email))).toEqual([]);

    t.clock.advance(10_000);
    await deliver(outboxKeyOf(t.config));
    expect((await smtp.waitFor(email)).to).toEqual([email]);
  });

  it("never sends a victim's link to an attacker: sealed content moved to another row, or a changed recipient, stays shut", async () => {
    const victim = await signedUp(t);
    const attacker = uniqueEmail('attacker');
    const other = await signedUp(t, { email: attacker });
    const [victimRow] = await rawRows(victim.email);
    const [attackerRow] = await rawRows(other.email);
    if (victimRow === undefined || attackerRow === undefined) throw new Error('rows missing');
    await t.db.updateTable('mail_outbox').set({ sealed_content: victimRow.sealed_content }).where('id', '=', attackerRow.id).execute();
    await t.db
      .updateTable('mail_outbox')
      .set({ to_address: `${attacker}.redirected` })
      .where('id', '=', victimRow.id)
      .execute();
    await deliver(outboxKeyOf(t.config));
    const received = smtp.messages.filter((message) => message.to.some((to) => to.startsWith(attacker)));
    expect(received).toEqual([]);
    expect(smtp.messages.some((message) => message.text.includes(victim.token))).toBe(false);
  });
});

describe.skipIf(dbUnavailable)('migration 006 on an outbox of an earlier version', () => {
  let database: Database;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => database.destroy());

  it('drops the bodies of delivered mail and seals unsent mail at the next boot, which then still goes out', async () => {
    const { db } = database;
    // Migrations see the database untyped, as the migrator hands it to them.
    const untyped = db as unknown as Kysely<unknown>;
    await outboxEncryption.down(untyped);
    const link = 'http://localhost:8080/reset-password/legacy-token-0123456789';
    for (const [id, sentAt] of [
      ['sent-row', 1],
      ['unsent-row', null],
    ] as const) {
      await sql`insert into mail_outbox (id, kind, to_address, locale, subject, text_body, html_body, created_at, attempts, next_attempt_at, sent_at)
        values (${id}, 'passwordReset', 'old@example.com', 'en', 'Reset your Foyer password', ${`Go to ${link}`}, ${`<a href="${link}">reset</a>`}, 1, 0, 1, ${sentAt})`.execute(
        db,
      );
    }
    await outboxEncryption.up(untyped);
    const t = await createTestApp({ database });
    try {
      const rows = await db.selectFrom('mail_outbox').selectAll().where('to_address', '=', 'old@example.com').orderBy('id').execute();
      expect(rows.map((row) => [row.id, row.sealed_content?.slice(0, 3) ?? null])).toEqual([
        ['sent-row', null],
        ['unsent-row', 'v1.'],
      ]);
      expect(JSON.stringify(rows)).not.toContain('legacy-token');
      const [, unsent] = await mailsTo(t, 'old@example.com');
      expect(unsent).toMatchObject({ id: 'unsent-row', subject: 'Reset your Foyer password', text_body: `Go to ${link}` });
    } finally {
      await t.close();
    }
  });
});
