import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { SmtpCapture } from '../smtp-capture.js';
import { send } from './client.js';

const REPO_ROOT = fileURLToPath(new URL('../../../..', import.meta.url));
const SERVER_MAIN = fileURLToPath(new URL('../../src/main.ts', import.meta.url));

export type HaproxyLookup = { found: true; path: string } | { found: false; reason: string };

/**
 * Debian's HAProxy: found, or installed when this is root with apt-get (as scripts/ensure-chromium.mjs
 * does for Chromium), or a reason the caller can print.
 */
export function findOrInstallHaproxy(log: (line: string) => void = () => undefined): HaproxyLookup {
  const candidates = [process.env.HAPROXY_PATH, '/usr/sbin/haproxy', '/usr/bin/haproxy', '/usr/local/sbin/haproxy'].filter(
    (path): path is string => path !== undefined && path !== '',
  );
  const found = () => candidates.find((path) => existsSync(path));
  const present = found();
  if (present !== undefined) return { found: true, path: present };
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (isRoot && existsSync('/usr/bin/apt-get')) {
    log("HAProxy is missing: installing Debian's haproxy package…");
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    try {
      execFileSync('apt-get', ['update', '-qq'], { stdio: 'pipe', env });
      execFileSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', 'haproxy'], { stdio: 'pipe', env });
    } catch (error) {
      return { found: false, reason: `installing haproxy failed: ${error instanceof Error ? error.message : String(error)}` };
    }
    const installed = found();
    if (installed !== undefined) return { found: true, path: installed };
  }
  return { found: false, reason: 'HAProxy is not installed and cannot be installed here: `sudo apt-get install haproxy`, or set HAPROXY_PATH' };
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A child process whose output is kept for the report should it fail. */
class Child {
  output = '';
  readonly exited: Promise<void>;

  constructor(readonly process: ChildProcess) {
    process.stdout?.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
    process.stderr?.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
    this.exited = new Promise((resolve) => process.once('exit', () => resolve()));
  }

  /** `SIGKILL`, `exit 1`…; `running` while it runs. */
  get ending(): string {
    const { exitCode, signalCode } = this.process;
    return signalCode ?? (exitCode === null ? 'running' : `exit ${exitCode}`);
  }

  get running(): boolean {
    return this.process.exitCode === null && this.process.signalCode === null;
  }

  async signal(signal: NodeJS.Signals): Promise<void> {
    if (!this.running) return;
    this.process.kill(signal);
    await this.exited;
  }
}

/** One Foyer server process (node + tsx on src/main.ts, so never a stale build). */
export class Instance extends Child {
  constructor(
    readonly name: string,
    readonly port: number,
    env: Record<string, string>,
  ) {
    super(
      spawn(process.execPath, ['--conditions=source', '--import', 'tsx', SERVER_MAIN], {
        cwd: REPO_ROOT,
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? tmpdir(), HOST: '127.0.0.1', PORT: String(port), ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    );
  }

  /** Until /readyz answers 200: migrated, listening, mail worker running. */
  async ready(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (!this.running) throw new Error(`instance ${this.name} exited early:\n${this.output}`);
      const answer = await send({ port: this.port, method: 'GET', path: '/readyz' }).catch(() => undefined);
      if (answer?.status === 200) return;
      if (Date.now() > deadline) throw new Error(`instance ${this.name} not ready within ${timeoutMs} ms:\n${this.output}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/**
 * Round robin over the instances, health-checked on /readyz every 300 ms. A request whose
 * connection is refused (an instance just killed, not yet marked down) is sent to another: it
 * never reached a server, so retrying it is safe. A request already sent is never retried, since
 * a POST may have been carried out. X-Forwarded-For carries each client's address (TRUST_PROXY=1),
 * X-Served-By names the instance behind every answer, errors included.
 */
function haproxyConfig(port: number, instances: readonly Instance[]): string {
  return `global
  maxconn 2000

defaults
  mode http
  timeout connect 2s
  timeout client 30s
  timeout server 30s
  retries 3
  option redispatch 1
  retry-on conn-failure
  option forwardfor

frontend foyer
  bind 127.0.0.1:${port}
  unique-id-format %{+X}o%ci%cp%fp%Ts%rt
  http-request set-header X-Request-Id %[unique-id] unless { req.hdr(x-request-id) -m found }
  default_backend instances

backend instances
  balance roundrobin
  option httpchk GET /readyz
  http-check expect status 200
  default-server inter 300ms fastinter 100ms downinter 500ms fall 2 rise 2
  http-after-response set-header X-Served-By %s
${instances.map((instance) => `  server ${instance.name} 127.0.0.1:${instance.port} check`).join('\n')}
`;
}

export interface ClusterOptions {
  haproxy: string;
  /** A PostgreSQL URL allowed to create and drop a database. */
  adminUrl: string;
  redisUrl: string;
  instances: number;
}

/** Three (or N) instances on one fresh PostgreSQL database and one Redis, one SMTP capture, HAProxy in front. */
export class Cluster {
  private constructor(
    readonly balancerPort: number,
    readonly instances: Instance[],
    readonly smtp: SmtpCapture,
    readonly databaseUrl: string,
    private readonly balancer: Child,
    private readonly cleanup: () => Promise<void>,
  ) {}

  static async start(options: ClusterOptions): Promise<Cluster> {
    const databaseName = `foyer_mi_${randomBytes(6).toString('hex')}`;
    const admin = async (statement: string) => {
      const client = new pg.Client({ connectionString: options.adminUrl });
      await client.connect();
      try {
        await client.query(statement);
      } finally {
        await client.end();
      }
    };
    const url = new URL(options.adminUrl);
    url.pathname = `/${databaseName}`;
    const databaseUrl = url.toString();
    const dir = await mkdtemp(join(tmpdir(), 'foyer-multi-instance-'));
    const smtp = new SmtpCapture();
    const started: Child[] = [];
    const cleanup = async () => {
      await Promise.all(started.map((child) => child.signal('SIGKILL')));
      await smtp.stop();
      await admin(`drop database if exists ${databaseName} with (force)`);
      await rm(dir, { recursive: true, force: true });
    };
    try {
      await admin(`create database ${databaseName}`);
      await smtp.start();
      const balancerPort = await freePort();
      const env = {
        FOYER_ENV: 'test',
        DATABASE_URL: databaseUrl,
        REDIS_URL: options.redisUrl,
        SMTP_URL: smtp.url,
        PUBLIC_URL: `http://localhost:${balancerPort}`,
        TRUST_PROXY: '1',
        // Cheap hashing, allowed with FOYER_ENV=test only.
        ARGON2_MEMORY_KIB: '1024',
        ARGON2_TIME: '1',
        MAIL_POLL_MS: '300',
        LOG_LEVEL: 'warn',
        WEB_DIST: join(dir, 'no-web-build'),
      };
      const instances: Instance[] = [];
      for (let i = 0; i < options.instances; i++) {
        const instance = new Instance(`foyer-${String.fromCharCode(97 + i)}`, await freePort(), env);
        instances.push(instance);
        started.push(instance);
      }
      // Started together: their migrations race, under Kysely's advisory lock.
      await Promise.all(instances.map((instance) => instance.ready(60_000)));
      const configPath = join(dir, 'haproxy.cfg');
      await writeFile(configPath, haproxyConfig(balancerPort, instances));
      const balancer = new Child(spawn(options.haproxy, ['-db', '-f', configPath], { stdio: ['ignore', 'pipe', 'pipe'] }));
      started.push(balancer);
      const cluster = new Cluster(balancerPort, instances, smtp, databaseUrl, balancer, cleanup);
      await cluster.balancerReady(10_000);
      return cluster;
    } catch (error) {
      await cleanup();
      throw error;
    }
  }

  private async balancerReady(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (!this.balancer.running) throw new Error(`haproxy exited:\n${this.balancer.output}`);
      const answer = await send({ port: this.balancerPort, method: 'GET', path: '/readyz' }).catch(() => undefined);
      if (answer?.status === 200) return;
      if (Date.now() > deadline) throw new Error(`haproxy did not answer within ${timeoutMs} ms:\n${this.balancer.output}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** What the processes printed (for a failure's message). */
  get output(): string {
    return [...this.instances.map((instance) => `--- ${instance.name}\n${instance.output}`), `--- haproxy\n${this.balancer.output}`].join('\n');
  }

  async stop(): Promise<void> {
    await this.cleanup();
  }
}
