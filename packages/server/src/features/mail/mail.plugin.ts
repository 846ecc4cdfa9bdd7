import type { FastifyInstance } from 'fastify';
import { isDeployed } from '../../config.js';
import { devMailboxEnabled, devMailboxRoutes, devMailboxRefusedReason } from './dev-mailbox.routes.js';
import { devMailboxTransport, smtpNeedsTls, smtpTransport, type MailTransport } from './mail.transports.js';
import { MailWorker } from './mail.worker.js';
import { outboxKeyOf, readUnsealed, sealMail, type OutboxKey } from './outbox.crypto.js';
import { listUnsealed, replaceContent } from './outbox.repo.js';

function chooseTransport(app: FastifyInstance): MailTransport | undefined {
  const { config } = app;
  const { smtpUrl } = config.mail;
  if (smtpUrl !== undefined) return smtpTransport({ url: smtpUrl, from: config.mail.from, requireTls: smtpNeedsTls(smtpUrl, isDeployed(config.env)) });
  if (devMailboxEnabled(config)) return devMailboxTransport({ db: app.db, clock: app.clock, log: app.log });
  return undefined;
}

/** Seals what migration 006 found unsent in clear (decision 0012); a no-op once done. */
async function sealLeftovers(app: FastifyInstance, key: OutboxKey): Promise<void> {
  const rows = await listUnsealed(app.db);
  for (const row of rows) {
    if (row.sealed_content === null) continue;
    const sealed = sealMail(key, { id: row.id, to: row.to_address }, readUnsealed(row.sealed_content));
    // Guarded by the old value: another instance sealing the same row at boot changes nothing.
    await replaceContent(app.db, row.id, { from: row.sealed_content, to: sealed });
  }
  if (rows.length > 0) app.log.info({ mails: rows.length }, 'queued mail of an earlier version sealed');
}

/**
 * Mail delivery (decisions 0009, 0012): the worker starts when the app is ready and stops when it
 * closes, handing back what it could not finish by the deadline. Without SMTP_URL outside the
 * local environment nothing is delivered, and nothing is lost either: mail waits in the outbox
 * until SMTP_URL is set.
 */
export async function registerMail(app: FastifyInstance): Promise<void> {
  // Read (or, locally, made) at boot, so a bad key file fails the start, not a sign-up.
  const key = outboxKeyOf(app.config);
  const transport = chooseTransport(app);
  const worker = new MailWorker({ db: app.db, clock: app.clock, log: app.log, key }, transport, { pollMs: app.config.mail.pollMs });
  app.decorate('mail', worker);
  app.addHook('onReady', async () => {
    await sealLeftovers(app, key);
    const refused = devMailboxRefusedReason(app.config);
    if (refused !== undefined) app.log.warn(refused);
    if (transport === undefined) {
      const message = 'SMTP_URL is not set: mail is kept in the outbox and delivered once it is';
      if (isDeployed(app.config.env)) app.log.warn(message);
      else app.log.info(message);
    }
    worker.start();
  });
  app.addHook('onClose', async () => worker.stop());
  if (devMailboxEnabled(app.config)) await app.register(devMailboxRoutes);
}
