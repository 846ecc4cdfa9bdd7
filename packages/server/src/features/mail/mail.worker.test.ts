import { ColumnNode, UpdateQueryNode, type KyselyPlugin } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SETUP_URL, eventually, mailsTo, postJson, postSignUp, signUpBody, tokenIn } from '../../../test/account-entry.js';
import {
  ManualClock,
  createTestApp,
  createTestDatabase,
  dbUnavailable,
  newDeviceId,
  uniqueEmail,
  useTestApp,
  type TestApp,
} from '../../../test/helpers.js';
import { SmtpCapture } from '../../../test/smtp-capture.js';
import type { Database } from '../../db/database.js';
import { verifyEmailMail } from '../signup/signup.mail.js';
import { queueMail } from './mail.service.js';
import { unitOfWork } from '../../lib/unit-of-work.js';
import { smtpTransport } from './mail.transports.js';
import { MailWorker, RETRY_CAP_MS, describeError, retryDelayMs } from './mail.worker.js';
import { outboxKeyOf } from './outbox.crypto.js';
import { listOutbox } from './outbox.repo.js';
import { readMailBacklog } from '../health/health.repo.js';

/**
 * Fails the UPDATE statements whose set columns `fails` picks, as a database that goes away
 * between two statements does: the test decides which write is lost, and when.
 */
function failingUpdates(fails: (columns: string[]) => boolean): KyselyPlugin {
  return {
    transformQuery: ({ node }) => {
      const columns = UpdateQueryNode.is(node)
        ? (node.updates ?? []).map((update) => (ColumnNode.is(update.column) ? update.column.column.name : ''))
        : [];
      if (columns.length > 0 && fails(columns)) throw new Error('Connection terminated unexpectedly');
      return node;
    },
    transformResult: async ({ result }) => result,
  };
}

const SECOND = 1000;
const MINUTE = 60 * SECOND;

describe('retry schedule', () => {
  it('waits 10 s after the first failure, doubling, capped at 15 minutes, and never gives up', () => {
    const delays = Array.from({ length: 12 }, (_, i) => retryDelayMs(i + 1));
    expect(delays).toEqual([10, 20, 40, 80, 160, 320, 640, 900, 900, 900, 900, 900].map((s) => s * SECOND));
    expect(retryDelayMs(500)).toBe(RETRY_CAP_MS);
  });

  it('keeps credentials out of the stored error', () => {
    const error = Object.assign(new Error('connect to smtp://mailer:hunter2@mail.example:587 failed'), { code: 'ECONNECTION' });
    expect(describeError(error)).toBe('ECONNECTION: connect to smtp://[redacted]@mail.example:587 failed');
    expect(describeError('x'.repeat(2000))).toHaveLength(500);
  });
});

describe.skipIf(dbUnavailable)('the mail worker over real SMTP', () => {
  const t = useTestApp();
  const smtp = new SmtpCapture();
  let worker: MailWorker | undefined;

  beforeAll(async () => smtp.start());
  afterAll(async () => smtp.stop());
  afterEach(async () => {
    await worker?.stop();
    worker = undefined;
  });

  const queue = (to: string) =>
    queueMail(unitOfWork(t), t.config, {
      to,
      locale: 'en',
      template: verifyEmailMail,
      data: { link: 'http://localhost:8080/verify-email/x', hours: 24 },
    });
  const workerFor = (url: string) => {
    worker = new MailWorker(
      { db: t.db, clock: t.clock, log: t.app.log, key: outboxKeyOf(t.config) },
      smtpTransport({ url, from: 'Foyer <no-reply@localhost>' }),
      {
        pollMs: 60 * MINUTE,
      },
    );
    return worker;
  };
  const row = async (to: string) => {
    const [found] = await listOutbox(t.db, { to });
    if (found === undefined) throw new Error(`no outbox row to ${to}`);
    return found;
  };

  it('delivers a due row and marks it sent', async () => {
    const to = uniqueEmail();
    await queue(to);
    expect(await workerFor(smtp.url).runOnce()).toBeGreaterThanOrEqual(1);
    expect((await smtp.waitFor(to)).subject).toBe('Verify your email address for Foyer');
    // Delivered: who, what kind and when stay; the body (its links) is gone.
    expect(await row(to)).toMatchObject({
      attempts: 1,
      sent_at: t.clock.now(),
      locked_until: null,
      last_error: null,
      sealed_content: null,
      kind: 'verifyEmail',
    });
  });

  it('retries a failed row on the back-off schedule, keeping it until it goes out', async () => {
    const closed = new SmtpCapture();
    await closed.start();
    const url = closed.url;
    await closed.stop();
    const to = uniqueEmail();
    await queue(to);
    const down = workerFor(url);
    const start = t.clock.now();
    let elapsed = 0;
    for (const [attempt, delay] of [
      [1, 10],
      [2, 20],
      [3, 40],
      [4, 80],
    ] as const) {
      await down.runOnce();
      const failed = await row(to);
      expect(failed).toMatchObject({ attempts: attempt, sent_at: null, locked_until: null, next_attempt_at: start + elapsed + delay * SECOND });
      expect(failed.last_error).toMatch(/ECONNREFUSED|ECONNECTION/);
      // Not due a moment before its time: nothing is attempted.
      t.clock.advance(delay * SECOND - 1);
      expect(await down.runOnce()).toBe(0);
      t.clock.advance(1);
      elapsed += delay * SECOND;
    }
    await closed.start();
    await down.runOnce();
    expect((await closed.waitFor(to)).to).toEqual([to]);
    expect(await row(to)).toMatchObject({ attempts: 5, sent_at: t.clock.now(), last_error: null });
    await closed.stop();
  });

  it('records a mail the SMTP server accepted while the database was away at the marking, and never sends it again', async () => {
    // The database fails exactly the statement that marks a row sent, as when it goes away between
    // the SMTP server's acceptance and the marking.
    let away = false;
    const marking = failingUpdates((columns) => away && columns.includes('sent_at'));
    worker = new MailWorker(
      { db: t.db.withPlugin(marking), clock: t.clock, log: t.app.log, key: outboxKeyOf(t.config) },
      smtpTransport({ url: smtp.url, from: 'Foyer <no-reply@localhost>' }),
      { pollMs: 60 * MINUTE },
    );
    const to = uniqueEmail('unmarked');
    await queue(to);
    const sentAt = t.clock.now();
    away = true;
    expect(await worker.runOnce()).toBeGreaterThanOrEqual(1);
    await smtp.waitFor(to);
    expect(await row(to)).toMatchObject({ sent_at: null });
    // Back, after the claim ran out: the next round records it and sends nothing.
    away = false;
    t.clock.advance(6 * MINUTE);
    await worker.runOnce();
    expect(await row(to)).toMatchObject({ sent_at: sentAt, locked_until: null, sealed_content: null });
    t.clock.advance(6 * MINUTE);
    await worker.runOnce();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(smtp.messages.filter((message) => message.to.includes(to))).toHaveLength(1);
  });

  it('sends the rest of a round once when the database fails the recording of one failed delivery', async () => {
    // A slow relay that refuses one mailbox for now (451): the refusal comes back at once, while
    // the other mails of the round are still being sent.
    const relay = new SmtpCapture({ delayMs: 400, refuses: (address) => address.startsWith('bounce-'), refusalCode: 451 });
    await relay.start();
    let away = true;
    const recordingFailure = failingUpdates((columns) => away && columns.includes('next_attempt_at') && !columns.includes('sent_at'));
    worker = new MailWorker(
      { db: t.db.withPlugin(recordingFailure), clock: t.clock, log: t.app.log, key: outboxKeyOf(t.config) },
      smtpTransport({ url: relay.url, from: 'Foyer <no-reply@localhost>' }),
      { pollMs: 60 * MINUTE },
    );
    const bounce = uniqueEmail('bounce');
    const others = [1, 2, 3].map((n) => uniqueEmail(`r${n}`));
    for (const to of [bounce, ...others]) await queue(to);

    // The round fails (the next poll says so) only once its other sends have settled.
    await expect(worker.runOnce()).rejects.toThrow('Connection terminated unexpectedly');
    away = false;
    for (const to of others) expect(await row(to)).toMatchObject({ attempts: 1, locked_until: null, last_error: null, sent_at: t.clock.now() });
    // The refused mail keeps its claim until it runs out, then goes again: at least once, never lost.
    expect(await row(bounce)).toMatchObject({ attempts: 0, sent_at: null });
    expect(await worker.runOnce()).toBe(0);
    t.clock.advance(6 * MINUTE);
    expect(await worker.runOnce()).toBeGreaterThanOrEqual(1);
    expect(await row(bounce)).toMatchObject({ attempts: 1, sent_at: null, last_error: expect.stringMatching(/451/) });
    for (const to of others) expect(relay.messages.filter((message) => message.to.includes(to))).toHaveLength(1);
    await worker.stop();
    worker = undefined;
    await relay.stop();
  });

  it('sends a mailbox refused for good (550) no more: kept as bounced without its body; one refused for now (451) waits and goes', async () => {
    const relay = new SmtpCapture({ refuses: (address) => address.startsWith('gone-') });
    const later = new SmtpCapture({ refuses: (address) => address.startsWith('full-'), refusalCode: 451 });
    await relay.start();
    await later.start();
    try {
      const gone = uniqueEmail('gone');
      await queue(gone);
      const w = workerFor(relay.url);
      await w.runOnce();
      expect(await row(gone)).toMatchObject({
        attempts: 1,
        sent_at: null,
        bounced_at: t.clock.now(),
        sealed_content: null,
        locked_until: null,
        last_error: expect.stringMatching(/550/),
      });
      t.clock.advance(60 * MINUTE);
      await w.runOnce();
      expect(await row(gone)).toMatchObject({ attempts: 1, sent_at: null });
      expect(relay.messages.filter((message) => message.to.includes(gone))).toHaveLength(0);
      // Nor is it mail waiting to go (the health answer's backlog).
      const due = (await readMailBacklog(t.db, t.clock.now())).due;
      await t.db.updateTable('mail_outbox').set({ bounced_at: null }).where('to_address', '=', gone).execute();
      expect((await readMailBacklog(t.db, t.clock.now())).due).toBe(due + 1);
      await w.stop();

      const full = uniqueEmail('full');
      await queue(full);
      const retrying = workerFor(later.url);
      await retrying.runOnce();
      expect(await row(full)).toMatchObject({ attempts: 1, sent_at: null, bounced_at: null, last_error: expect.stringMatching(/451/) });
      t.clock.advance(10 * SECOND);
      expect(await retrying.runOnce()).toBe(1);
      expect(await row(full)).toMatchObject({ attempts: 2, bounced_at: null });
    } finally {
      await relay.stop();
      await later.stop();
    }
  });

  it('sends each row once when two workers (two instances) poll together', async () => {
    const recipients = Array.from({ length: 12 }, () => uniqueEmail('many'));
    for (const to of recipients) await queue(to);
    const first = workerFor(smtp.url);
    const second = new MailWorker(
      { db: t.db, clock: t.clock, log: t.app.log, key: outboxKeyOf(t.config) },
      smtpTransport({ url: smtp.url, from: 'Foyer <no-reply@localhost>' }),
      {
        pollMs: 60 * MINUTE,
      },
    );
    const drain = async (w: MailWorker) => {
      while ((await w.runOnce()) > 0) {
        // until nothing is due
      }
    };
    await Promise.all([drain(first), drain(second)]);
    await second.stop();
    for (const to of recipients)
      expect(
        smtp.messages.filter((message) => message.to.includes(to)),
        to,
      ).toHaveLength(1);
  });

  it('leaves a claimed row to its worker until the claim runs out', async () => {
    const to = uniqueEmail();
    await queue(to);
    const now = t.clock.now();
    await t.db
      .updateTable('mail_outbox')
      .set({ locked_until: now + 5 * MINUTE })
      .where('to_address', '=', to)
      .execute();
    const w = workerFor(smtp.url);
    await w.runOnce();
    expect((await row(to)).sent_at).toBeNull();
    t.clock.advance(5 * MINUTE);
    await w.runOnce();
    expect((await row(to)).sent_at).toBe(t.clock.now());
  });

  it('logs in with the credentials of SMTP_URL, and never stores them', async () => {
    const guarded = new SmtpCapture({ credentials: { user: 'foyer', pass: 's3cret-pass' } });
    await guarded.start();
    try {
      const to = uniqueEmail();
      await queue(to);
      await workerFor(guarded.url).runOnce();
      expect((await guarded.waitFor(to)).to).toEqual([to]);

      const refused = uniqueEmail();
      await queue(refused);
      await worker?.stop();
      await workerFor(guarded.url.replace('s3cret-pass', 'wrong-pass')).runOnce();
      const failed = await row(refused);
      expect(failed.sent_at).toBeNull();
      expect(failed.last_error).not.toContain('wrong-pass');
    } finally {
      await guarded.stop();
    }
  });
});

describe.skipIf(dbUnavailable)('mail that survives an SMTP outage and a restart', () => {
  let database: Database;
  const apps: TestApp[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterEach(async () => {
    for (const app of apps.splice(0)) await app.close();
  });
  afterAll(async () => database.destroy());

  it('queues the sign-up mail while SMTP is down and delivers it once SMTP is back', async () => {
    const smtp = new SmtpCapture();
    await smtp.start();
    await smtp.stop();
    const t = await createTestApp({ database, env: { SMTP_URL: smtp.url, MAIL_POLL_MS: '50' } });
    apps.push(t);

    const body = signUpBody({ firstName: 'Jürgen' });
    expect((await postSignUp(t, body, { headers: { 'accept-language': 'de-DE,de;q=0.9' } })).statusCode).toBe(200);
    // The worker was nudged and failed: the mail waits in the outbox for its next attempt.
    await eventually(async () => (await mailsTo(t, body.email))[0]?.attempts === 1);
    const waiting = (await mailsTo(t, body.email))[0];
    expect(waiting).toMatchObject({ sent_at: null, next_attempt_at: t.clock.now() + 10 * SECOND });

    await smtp.start();
    t.clock.advance(10 * SECOND);
    const mail = await smtp.waitFor(body.email);
    await smtp.stop();

    expect(mail.subject).toBe('Bestätigen Sie Ihre E-Mail-Adresse für Foyer');
    expect(mail.headers.get('content-language')).toBe('de');
    expect(mail.headers.get('from')).toBe('Foyer <no-reply@localhost>');
    // Non-ASCII through SMTP; the verification names nobody (signup.mail.ts).
    expect(mail.text).toMatch(/^Hallo,\r?\n/);
    expect(mail.text).not.toContain('Jürgen');
    expect(mail.text).toContain('E-Mail-Adresse bestätigen');
    expect(mail.text).toContain('Ihr Foyer-Team');
    expect(mail.html).toContain('<html lang="de">');
    expect(mail.html).toContain('Foyer');
    const token = tokenIn(mail.text, 'verifyEmail');
    expect(mail.html).toContain(`href="${t.config.publicUrl}/verify-email/${token}"`);
    await eventually(async () => (await mailsTo(t, body.email))[0]?.sent_at !== null);

    const setup = await postJson(t, SETUP_URL, { token, deviceId: newDeviceId() });
    expect(setup.statusCode).toBe(200);
  });

  it('resumes after a restart: a new instance on the same database delivers what the old one could not', async () => {
    const clock = new ManualClock();
    const smtp = new SmtpCapture();
    await smtp.start();
    await smtp.stop();
    const before = await createTestApp({ database, clock, env: { SMTP_URL: smtp.url, MAIL_POLL_MS: '50' } });
    const body = signUpBody();
    expect((await postSignUp(before, body)).statusCode).toBe(200);
    await eventually(async () => (await mailsTo(before, body.email))[0]?.attempts === 1);
    await before.close();

    await smtp.start();
    clock.advance(10 * SECOND);
    const after = await createTestApp({ database, clock, env: { SMTP_URL: smtp.url, MAIL_POLL_MS: '50' } });
    apps.push(after);
    expect((await smtp.waitFor(body.email)).subject).toBe('Verify your email address for Foyer');
    await eventually(async () => (await mailsTo(after, body.email))[0]?.sent_at !== null);
    expect((await mailsTo(after, body.email))[0]?.attempts).toBe(2);
    await smtp.stop();
  });
});
