import { execFile } from 'node:child_process';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './server-process.js';

const run = promisify(execFile);

async function onPath(command: string): Promise<boolean> {
  try {
    await run('sh', ['-c', `command -v ${command}`]);
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether a private cluster can be made here (initdb and pg_ctl on PATH). CI sets
 * REQUIRE_POSTGRES=1: there a missing tool fails the run instead of skipping the suite.
 */
export async function privateClusterAvailable(): Promise<boolean> {
  if ((await onPath('initdb')) && (await onPath('pg_ctl'))) return true;
  if (process.env.REQUIRE_POSTGRES === '1') throw new Error('initdb/pg_ctl not on PATH and REQUIRE_POSTGRES=1');
  console.warn('initdb/pg_ctl not on PATH — the private-PostgreSQL outage tests are skipped');
  return false;
}

/**
 * A PostgreSQL cluster of the test's own, in a temporary directory on a free port, that the test
 * may stop, restart and freeze without touching the shared one. initdb refuses to run as root, so
 * as root (CI, containers) the tools run as the `postgres` OS user, owner of the directory.
 */
export class PrivateCluster {
  private constructor(
    private readonly dir: string,
    readonly port: number,
    private readonly asUser: string | undefined,
  ) {}

  /** The postmaster's pid is its first line. */
  get pidFile(): string {
    return join(this.dir, 'data', 'postmaster.pid');
  }

  get url(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }

  static async create(): Promise<PrivateCluster> {
    const dir = await mkdtemp(join(tmpdir(), 'foyer-pg-'));
    const asUser = process.getuid?.() === 0 ? 'postgres' : undefined;
    if (asUser !== undefined) {
      const uid = Number((await run('id', ['-u', asUser])).stdout.trim());
      const gid = Number((await run('id', ['-g', asUser])).stdout.trim());
      await chown(dir, uid, gid);
    }
    const cluster = new PrivateCluster(dir, await freePort(), asUser);
    await cluster.tool('initdb', ['-D', join(dir, 'data'), '-U', 'postgres', '-A', 'trust', '--no-sync', '--no-instructions']);
    await cluster.start();
    return cluster;
  }

  private async tool(command: string, args: string[]): Promise<void> {
    const [file, argv] = this.asUser === undefined ? [command, args] : ['runuser', ['-u', this.asUser, '--', command, ...args]];
    await run(file, argv, { cwd: this.dir });
  }

  async start(): Promise<void> {
    // fsync off: the data is thrown away with the directory; only the outage is the point.
    const options = `-p ${this.port} -k ${this.dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=40`;
    await this.tool('pg_ctl', ['-D', join(this.dir, 'data'), '-l', join(this.dir, 'log'), '-o', options, '-w', 'start']);
  }

  /** `fast`: sessions are ended (57P01), as in a restart or a failover. */
  async stop(mode: 'fast' | 'immediate' = 'fast'): Promise<void> {
    await this.tool('pg_ctl', ['-D', join(this.dir, 'data'), '-m', mode, '-w', 'stop']);
  }

  async destroy(): Promise<void> {
    await this.stop('immediate').catch(() => undefined);
    await rm(this.dir, { recursive: true, force: true });
  }
}
