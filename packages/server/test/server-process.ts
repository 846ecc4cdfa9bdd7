import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { API_BASE, COOKIE_BASE_NAMES, XSRF_HEADER } from '@foyer/contract';
import { randomToken } from '../src/lib/crypto.js';

const REPO_ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const SERVER_MAIN = fileURLToPath(new URL('../src/main.ts', import.meta.url));

/**
 * Only what a server process of a test needs: nothing of the test runner's environment leaks in.
 * `FOYER_ENV=test` on 127.0.0.1 and `port`, warnings only, no web build; `env` adds or overrides.
 */
export function serverEnvironment(port: number, env: Record<string, string>): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? tmpdir(),
    FOYER_ENV: 'test',
    HOST: '127.0.0.1',
    PORT: String(port),
    LOG_LEVEL: 'warn',
    WEB_DIST: join(tmpdir(), `foyer-no-web-dist-${randomBytes(6).toString('hex')}`),
    ...env,
  };
}

/** A port nothing listens on now, for a server of a test to take. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * A real server process, started from the TypeScript source with tsx (the workspace's), so the
 * test never runs a stale build: `--conditions=source` makes @foyer/contract resolve to its
 * source too. Its output is kept for the error message should it fail to start.
 */
export class ServerProcess {
  private output = '';

  private constructor(
    private readonly child: ChildProcess,
    readonly url: string,
  ) {
    child.stdout?.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
  }

  /** `nodeArgs` go before the entry point (a `--require` preload, say). */
  static async start(env: Record<string, string>, nodeArgs: string[] = []): Promise<ServerProcess> {
    const port = await freePort();
    const child = spawn(process.execPath, [...nodeArgs, '--conditions=source', '--import', 'tsx', SERVER_MAIN], {
      cwd: REPO_ROOT,
      env: serverEnvironment(port, env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    return new ServerProcess(child, `http://127.0.0.1:${port}`);
  }

  /** True once the process ended (crashed, or stopped). */
  get exited(): boolean {
    return this.child.exitCode !== null || this.child.signalCode !== null;
  }

  /** What the process printed so far (for a failing assertion's message). */
  get log(): string {
    return this.output;
  }

  /** Waits until /healthz answers 200 (migrations done, listening). */
  async ready(timeoutMs = 45_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (this.child.exitCode !== null) throw new Error(`server exited early (${this.child.exitCode}):\n${this.output}`);
      try {
        if ((await fetch(`${this.url}/healthz`)).ok) return;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) throw new Error(`server did not become healthy:\n${this.output}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** A POST as the web app sends it (JSON, XSRF pair), from `clientAddress` (TRUST_PROXY=1). */
  async post(
    path: string,
    body: object,
    clientAddress: string,
  ): Promise<{ status: number; body: unknown; retryAfter: string | null; connection: string | null }> {
    const xsrf = randomToken();
    const response = await fetch(`${this.url}${API_BASE}${path}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        cookie: `${COOKIE_BASE_NAMES.xsrf}=${xsrf}`,
        [XSRF_HEADER]: xsrf,
        'x-forwarded-for': clientAddress,
      },
      body: JSON.stringify(body),
    });
    return {
      status: response.status,
      body: await response.json(),
      retryAfter: response.headers.get('retry-after'),
      connection: response.headers.get('connection'),
    };
  }

  /** How the process ended: its exit code, or the signal that ended it; undefined while it runs. */
  get ending(): number | NodeJS.Signals | undefined {
    return this.child.exitCode ?? this.child.signalCode ?? undefined;
  }

  /**
   * SIGTERM, as an orchestrator stops it; resolves once it exited. `again` sends another SIGTERM
   * that many milliseconds later, as an impatient supervisor (or Ctrl-C pressed twice) does.
   */
  async stop(options: { again?: number } = {}): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.kill('SIGTERM');
    const { again } = options;
    const repeat = again === undefined ? undefined : setTimeout(() => this.child.kill('SIGTERM'), again);
    await exited;
    clearTimeout(repeat);
  }
}
