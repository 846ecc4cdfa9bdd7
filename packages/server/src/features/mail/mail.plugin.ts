import type { FastifyInstance } from 'fastify';
import { isDeployed } from '../../config.js';
import { devMailboxEnabled, devMailboxRoutes } from './dev-mailbox.routes.js';
import { devMailboxTransport, smtpTransport, type MailTransport } from './mail.transports.js';
import { MailWorker } from './mail.worker.js';

function chooseTransport(app: FastifyInstance): MailTransport | undefined {
  const { config } = app;
  if (config.mail.smtpUrl !== undefined) return smtpTransport({ url: config.mail.smtpUrl, from: config.mail.from });
  if (devMailboxEnabled(config)) return devMailboxTransport({ db: app.db, clock: app.clock, log: app.log });
  return undefined;
}

/**
 * Mail delivery (decision 0009): the worker starts when the app is ready and stops, finishing the
 * round in flight, when it closes. Without SMTP_URL outside the local environment nothing is
 * delivered, and nothing is lost either: mail waits in the outbox until SMTP_URL is set.
 */
export async function registerMail(app: FastifyInstance): Promise<void> {
  const transport = chooseTransport(app);
  const worker = new MailWorker({ db: app.db, clock: app.clock, log: app.log }, transport, app.config.mail.pollMs);
  app.decorate('mail', worker);
  app.addHook('onReady', async () => {
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
