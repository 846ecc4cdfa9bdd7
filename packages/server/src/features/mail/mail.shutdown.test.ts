import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, postSignUp, signUpBody } from '../../../test/account-entry.js';
import { ManualClock, createTestApp, createTestDatabase, dbUnavailable } from '../../../test/helpers.js';
import { SmtpCapture } from '../../../test/smtp-capture.js';
import type { Database } from '../../db/database.js';
import { STOP_DEADLINE_MS } from './mail.worker.js';

/** Accepts TCP connections and never says a word: a frozen mail server. */
async function silentServer(): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `smtp://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A server that greets and takes the message, then freezes before accepting it. */
async function freezingServer(): Promise<{ url: string; close(): Promise<void> }> {
  const smtp = new SmtpCapture({ freezeAtData: true });
  await smtp.start();
  return { url: smtp.url, close: () => smtp.stop() };
}

/**
 * Decision 0012: a frozen SMTP server holds neither a send nor the shutdown. Closing gives the
 * send STOP_DEADLINE_MS, then hands the mail back to the outbox for the next start to deliver.
 */
describe.skipIf(dbUnavailable)('shutting down while the SMTP server is frozen', () => {
  let database: Database;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => database.destroy());

  it.each([
    ['accepts connections and never answers', silentServer],
    ['stops answering in the middle of DATA', freezingServer],
  ])('closes within the deadline when the server %s, and the mail is due again', async (_name, frozenServer) => {
    const frozen = await frozenServer();
    const clock = new ManualClock();
    const t = await createTestApp({ database, clock, env: { SMTP_URL: frozen.url, MAIL_POLL_MS: '50' } });
    const body = signUpBody();
    try {
      expect((await postSignUp(t, body)).statusCode).toBe(200);
      const row = () => t.db.selectFrom('mail_outbox').selectAll().where('to_address', '=', body.email).executeTakeFirstOrThrow();
      // The worker has claimed it and is stuck sending it.
      await eventually(async () => (await row()).locked_until !== null);

      const started = Date.now();
      await t.app.close();
      expect(Date.now() - started).toBeLessThan(STOP_DEADLINE_MS + 1500);
      expect(await row()).toMatchObject({ sent_at: null, locked_until: null, attempts: 0, next_attempt_at: clock.now() });
      expect((await row()).sealed_content).toMatch(/^v1\./);
    } finally {
      await t.close();
      await frozen.close();
    }

    // Nothing acknowledged is lost: the next start delivers it.
    const smtp = new SmtpCapture();
    await smtp.start();
    const next = await createTestApp({ database, clock, env: { SMTP_URL: smtp.url, MAIL_POLL_MS: '50' } });
    try {
      expect((await smtp.waitFor(body.email)).subject).toBe('Verify your email address for Foyer');
    } finally {
      await next.close();
      await smtp.stop();
    }
  });
});
