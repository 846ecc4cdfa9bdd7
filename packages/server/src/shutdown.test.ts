import { randomBytes } from 'node:crypto';
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { CALLS } from '@foyer/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUpBody } from '../test/account-entry.js';
import { TEST_DB } from '../test/helpers.js';
import { ServerProcess, freePort, serverEnvironment } from '../test/server-process.js';

const GRACE_MS = 1500;
const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

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

/**
 * Decision 0011: the argon2 threads end with the app, after the requests in flight have their
 * answers. Sign-ins still hashing when SIGTERM arrives are answered as usual (unknown emails: 401),
 * or refused as the service closes (503, to retry elsewhere), never failed with a 500 because their
 * hash lost its thread; and their connections close once answered, so the stop is quick.
 */
describe.skipIf(TEST_DB !== 'sqlite')('shutdown with sign-ins hashing', () => {
  let dir = '';

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'foyer-shutdown-'));
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('answers the sign-ins in flight before the argon2 threads end', async () => {
    // The deployed cost, so that sixteen hashes on the test machine's cores take a while. At info,
    // the server logs each request it has read: SIGTERM waits until it holds all sixteen, since a
    // request still in the kernel's buffers when the server stops is on a connection Node closes
    // as idle, which says nothing about sign-ins in flight.
    const server = await ServerProcess.start({ DATABASE_URL: join(dir, 'hashing.sqlite'), RATE_LIMITS: 'off', LOG_LEVEL: 'info' });
    try {
      await server.ready();
      const signIn = (n: number) =>
        server.post(
          CALLS.signin.path,
          { email: `nobody-${n}@example.com`, hashPassword: 'a'.repeat(64), deviceId: randomBytes(9).toString('base64url') },
          '192.0.2.30',
        );
      expect((await signIn(0)).status).toBe(401);
      const answers = Promise.all(Array.from({ length: 16 }, (_, n) => signIn(n + 1)));
      const received = () => server.log.split('\n').filter((line) => line.includes('"msg":"incoming request"') && line.includes(CALLS.signin.path)).length;
      const deadline = Date.now() + 10_000;
      while (received() < 17 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
      expect(received()).toBe(17);
      const stopping = Date.now();
      // A second SIGTERM while stopping changes nothing: the answers in flight still come.
      const stopped = server.stop({ again: 50 });
      const settled = await answers;
      await stopped;
      expect(server.ending, server.log).toBe(0);
      // The clients' keep-alive connections are closed once their answers are sent: the stop does
      // not wait out its grace period (10 s) for them, and no client sends on a closing connection.
      expect(Date.now() - stopping).toBeLessThan(5000);
      const statuses = settled.map((answer) => answer.status);
      expect(
        statuses.filter((status) => status !== 401 && status !== 503),
        server.log,
      ).toEqual([]);
      expect(statuses).toContain(401);
      expect(settled.map((answer) => answer.connection)).toContain('close');
      expect(server.log).not.toMatch(/got no answer/);
    } finally {
      await server.stop();
    }
  });
});

/**
 * Decision 0011: `npm start` runs its script in a shell, and npm passes SIGTERM to that shell. The
 * script ends in `exec node …`, so node takes the shell's place and the signal reaches the server,
 * which stops gracefully; without `exec` the shell would exit and leave the server running,
 * orphaned, holding its port. Run as npm runs it (`sh -c`), with the build step left out.
 */
describe.skipIf(TEST_DB !== 'sqlite')('npm start and SIGTERM', () => {
  let dir = '';

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'foyer-npm-start-'));
    // The script starts the built server: build it (nothing to do when it is current).
    await promisify(execFile)(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-b', 'packages/server'], { cwd: ROOT });
  }, 120_000);

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('stops the server when the shell npm started is told to stop', async () => {
    const { scripts } = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } };
    expect(scripts.start.startsWith('npm run build && ')).toBe(true);
    const script = scripts.start.replace('npm run build && ', '');
    const port = await freePort();
    let output = '';
    const shell = spawn('sh', ['-c', script], {
      cwd: ROOT,
      env: serverEnvironment(port, { LOG_LEVEL: 'info', DATABASE_URL: join(dir, 'foyer.sqlite') }),
      stdio: ['ignore', 'pipe', 'pipe'],
      // Its own process group, so whatever is left of it can be ended together.
      detached: true,
    });
    shell.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    shell.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const healthy = async () => {
      try {
        return (await fetch(`http://127.0.0.1:${port}/healthz`)).ok;
      } catch {
        return false;
      }
    };
    try {
      const deadline = Date.now() + 45_000;
      while (!(await healthy()) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
      expect(await healthy(), output).toBe(true);

      const exited = new Promise<number | null>((resolve) => shell.once('exit', (code) => resolve(code)));
      shell.kill('SIGTERM');
      expect(await exited, output).toBe(0);
      expect(output).toContain('shutting down');
      expect(await healthy()).toBe(false);
    } finally {
      try {
        if (shell.pid !== undefined) process.kill(-shell.pid, 'SIGKILL');
      } catch {
        // The group has ended already.
      }
    }
  });
});
