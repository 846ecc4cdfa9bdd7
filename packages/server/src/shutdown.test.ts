import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CALLS } from '@foyer/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUpBody } from '../test/account-entry.js';
import { TEST_DB } from '../test/helpers.js';
import { ServerProcess } from '../test/server-process.js';

const GRACE_MS = 1500;

/**
 * Decision 0011: shutdown has one deadline. An SMTP server that accepts and never speaks holds a
 * mail in flight (nodemailer would wait 30 s for its greeting); SIGTERM still ends the process
 * within SHUTDOWN_GRACE_MS. Not about the database: the SQLite project runs it.
 */
describe.skipIf(TEST_DB !== 'sqlite')('shutdown with a frozen SMTP server', () => {
  let dir = '';
  let smtp: Server | undefined;
  const sockets: Socket[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'foyer-shutdown-'));
    smtp = createServer((socket) => {
      sockets.push(socket);
      socket.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => smtp?.listen(0, '127.0.0.1', resolve));
  });

  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => smtp?.close(resolve));
    await rm(dir, { recursive: true, force: true });
  });

  it('exits within the grace period although a mail send hangs', async () => {
    const { port } = smtp?.address() as AddressInfo;
    const server = await ServerProcess.start({
      DATABASE_URL: join(dir, 'foyer.sqlite'),
      SMTP_URL: `smtp://127.0.0.1:${port}`,
      SHUTDOWN_GRACE_MS: String(GRACE_MS),
      RATE_LIMITS: 'off',
      ARGON2_MEMORY_KIB: '1024',
      ARGON2_TIME: '1',
    });
    try {
      await server.ready();
      const answer = await server.post(CALLS.signup.path, signUpBody(), '192.0.2.20');
      expect(answer.status).toBe(200);
      const deadline = Date.now() + 5000;
      while (sockets.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(sockets.length).toBeGreaterThan(0);

      const started = Date.now();
      await server.stop();
      expect(Date.now() - started).toBeLessThan(GRACE_MS + 2000);
    } finally {
      await server.stop();
    }
  });
});
