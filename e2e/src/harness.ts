import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { AxeBuilder } from '@axe-core/playwright';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { MailCapture } from './mailbox.ts';

const execFileAsync = promisify(execFile);
const root = fileURLToPath(new URL('../../', import.meta.url));
const serverMain = join(root, 'packages/server/dist/main.js');
/** As `npm start` runs it: the preload sizes libuv's pool before the ESM loader creates it (decision 0029). */
const threadpoolPreload = join(root, 'packages/server/dist/threadpool.cjs');
const adminMain = join(root, 'packages/server/dist/cli/admin.js');

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.unref();
    probe.on('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

export interface RunningServer {
  url: string;
  /** The SQLite file the server uses. */
  databasePath: string;
  env: NodeJS.ProcessEnv;
  /** Runs the admin CLI against the same database, as an operator would. */
  admin(...args: string[]): Promise<{ stdout: string; stderr: string }>;
  stop(): Promise<void>;
}

/**
 * Starts the built server as `npm start` runs it, on a free port and a fresh SQLite file, so each
 * test file has its own accounts, lockout counters and sessions.
 */
export async function startServer(extraEnv: Record<string, string> = {}): Promise<RunningServer> {
  if (!existsSync(serverMain)) throw new Error(`${serverMain} is missing: run \`npm run build\` first`);
  const dir = mkdtempSync(join(tmpdir(), 'foyer-e2e-'));
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    FOYER_ENV: 'test',
    PORT: String(port),
    DATABASE_URL: join(dir, 'foyer.sqlite'),
    LOG_LEVEL: 'warn',
    ...extraEnv,
  };
  const child: ChildProcess = spawn(process.execPath, ['--require', threadpoolPreload, serverMain], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const url = `http://localhost:${port}`;

  const deadline = Date.now() + 20_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited early (${child.exitCode}):\n${output}`);
    try {
      const response = await fetch(`${url}/healthz`);
      if (response.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`server did not become healthy:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }

  return {
    url,
    databasePath: join(dir, 'foyer.sqlite'),
    env,
    admin: async (...args) => execFileAsync(process.execPath, [adminMain, ...args], { env }),
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const chromiumPath = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find(
  (path): path is string => typeof path === 'string' && existsSync(path),
);
// Every browser test needs it: a file stops here, before it starts a server it could not stop.
if (!chromiumPath) throw new Error('Chromium not found: run `node scripts/ensure-chromium.mjs` or set CHROMIUM_PATH');
const CHROMIUM_PATH: string = chromiumPath;

/** Debian's Chromium, with the flags this closed network needs (no background traffic). */
export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-dev-shm-usage',
    ],
  });
}

export async function newContext(browser: Browser, options: { locale?: string; phone?: boolean } = {}): Promise<BrowserContext> {
  return browser.newContext({
    locale: options.locale ?? 'en-US',
    viewport: options.phone ? { width: 390, height: 844 } : { width: 1280, height: 800 },
    ...(options.phone ? { isMobile: true, hasTouch: true, deviceScaleFactor: 2 } : {}),
  });
}

/**
 * axe-core over the whole page, WCAG 2.1 A and AA plus best practices. Finite transitions and
 * animations (a button turning enabled) are let finish first: axe would otherwise judge the
 * contrast of a colour half-way between two states. Endless ones (a spinner) are not waited for.
 */
export async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(() =>
    Promise.all(
      document
        .getAnimations()
        .filter((animation) => Number.isFinite(Number(animation.effect?.getComputedTiming().endTime)))
        .map((animation) => animation.finished.catch(() => undefined)),
    ),
  );
  const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']).analyze();
  return results.violations.map((violation) => `${violation.id}: ${violation.help} (${violation.nodes.map((node) => node.target.join(' ')).join(', ')})`);
}

/** Where screenshots go when SCREENSHOTS_DIR is set; otherwise none are taken. */
export async function screenshot(page: Page, name: string): Promise<void> {
  const dir = process.env.SCREENSHOTS_DIR;
  if (!dir) return;
  await page.screenshot({ path: join(dir, `${name}.png`), fullPage: true });
}

/**
 * Plays the passage of time for emailed links: every unspent link of the account is made to
 * have expired a minute ago, as if the person opened the mail too late.
 */
export async function expireEmailedLinks(server: RunningServer, email: string): Promise<void> {
  const db = new Database(server.databasePath);
  try {
    const changed = db
      .prepare(`update email_tokens set expires_at = ? where used_at is null and user_id in (select id from users where email_key = ?)`)
      .run(Date.now() - 60_000, email.trim().toLowerCase()).changes;
    if (changed === 0) throw new Error(`no unspent emailed link for ${email}`);
  } finally {
    db.close();
  }
}

export interface MailStack {
  server: RunningServer;
  browser: Browser;
  mail: MailCapture;
  stop(): Promise<void>;
}

/** A server that sends its mail over real SMTP to a capture server, and a browser. */
export async function startMailStack(): Promise<MailStack> {
  const mail = new MailCapture();
  await mail.start();
  const server = await startServer({ SMTP_URL: mail.url, MAIL_POLL_MS: '200' });
  const browser = await launchBrowser();
  return {
    server,
    browser,
    mail,
    stop: async () => {
      await browser.close();
      await server.stop();
      await mail.stop();
    },
  };
}
