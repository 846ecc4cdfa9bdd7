import { afterEach, describe, expect, it } from 'vitest';
import { dbUnavailable, uniqueEmail, useTestApp } from '../../../test/helpers.js';
import { SmtpCapture } from '../../../test/smtp-capture.js';
import { verifyEmailMail } from '../signup/signup.mail.js';
import { queueMail } from './mail.service.js';
import { unitOfWork } from '../../lib/unit-of-work.js';
import { smtpTransport, type MailTransport } from './mail.transports.js';
import { MailWorker } from './mail.worker.js';
import { outboxKeyOf } from './outbox.crypto.js';

const MAILS = 60;
/** A relay that takes this long to accept each message (a real one often takes longer). */
const PER_MESSAGE_MS = 150;

/** Decision 0012: mail keeps up with sign-ups; a re-send after a crash is the same message. */
describe.skipIf(dbUnavailable)('mail throughput over real SMTP', () => {
  const t = useTestApp();
  const cleanup: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
  });

  const capture = async (options: ConstructorParameters<typeof SmtpCapture>[0] = {}) => {
    const smtp = new SmtpCapture(options);
    await smtp.start();
    cleanup.push(() => smtp.stop());
    return smtp;
  };
  const queue = (to: string) =>
    queueMail(unitOfWork(t), t.config, {
      to,
      locale: 'en',
      template: verifyEmailMail,
      data: { link: 'http://localhost:8080/verify-email/x', hours: 24 },
    });
  const workerOn = (transport: MailTransport, stopDeadlineMs?: number) => {
    const worker = new MailWorker({ db: t.db, clock: t.clock, log: t.app.log, key: outboxKeyOf(t.config) }, transport, {
      pollMs: 60_000,
      ...(stopDeadlineMs === undefined ? {} : { stopDeadlineMs }),
    });
    cleanup.push(() => worker.stop());
    return worker;
  };

  it(`delivers ${MAILS} mails several at a time over pooled connections, far faster than one by one`, async () => {
    const smtp = await capture({ delayMs: PER_MESSAGE_MS });
    const recipients = Array.from({ length: MAILS }, () => uniqueEmail('burst'));
    for (const to of recipients) await queue(to);
    const worker = workerOn(smtpTransport({ url: smtp.url, from: 'Foyer <no-reply@localhost>' }));

    const started = Date.now();
    while ((await worker.runOnce()) > 0) {
      // until nothing is due
    }
    const elapsed = Date.now() - started;

    for (const to of recipients)
      expect(
        smtp.messages.filter((message) => message.to.includes(to)),
        to,
      ).toHaveLength(1);
    expect(smtp.maxConcurrent).toBeGreaterThan(1);
    // One at a time needs at least MAILS × PER_MESSAGE_MS (9 s); four lanes about a quarter.
    expect(elapsed).toBeLessThan((MAILS * PER_MESSAGE_MS) / 2);
    const unsent = await t.db.selectFrom('mail_outbox').select('id').where('to_address', 'in', recipients).where('sent_at', 'is', null).execute();
    expect(unsent).toEqual([]);
  });

  it('re-sends a mail whose claim ran out (its worker died after the server took it) with the same Message-ID', async () => {
    const smtp = await capture();
    const to = uniqueEmail('crash');
    const id = await queue(to);
    const real = smtpTransport({ url: smtp.url, from: 'Foyer <no-reply@localhost>' });
    cleanup.push(() => real.close({ force: true }));
    // Sends, then never reports back: the process died between the server's "250 OK" and marking.
    const dying: MailTransport = {
      name: 'smtp',
      send: async (mail) => real.send(mail).then(() => new Promise<void>(() => undefined)),
      close: async () => undefined,
    };
    void workerOn(dying, 10).runOnce();
    await smtp.waitFor(to);

    const survivor = workerOn(smtpTransport({ url: smtp.url, from: 'Foyer <no-reply@localhost>' }));
    expect(await survivor.runOnce()).toBe(0);
    t.clock.advance(5 * 60_000);
    expect(await survivor.runOnce()).toBe(1);

    const copies = smtp.messages.filter((message) => message.to.includes(to));
    expect(copies).toHaveLength(2);
    expect(copies.map((message) => message.headers.get('message-id'))).toEqual([`<${id}@localhost>`, `<${id}@localhost>`]);
  });
});
