// Foyer under test: the built server in production mode on a fresh database, seeded through the
// admin CLI as an operator would.
import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { run, startChild, waitForHttp } from './proc.mjs';

export const ROOT = new URL('../../', import.meta.url).pathname.replace(/\/$/, '');
const MAIN = join(ROOT, 'packages/server/dist/main.js');
const ADMIN = join(ROOT, 'packages/server/dist/cli/admin.js');
export const PG_ADMIN_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** Copies packages/web/dist into `dir` (see WEB_DIST above); returns the copy's path. */
export function copyWebDist(dir) {
  const target = join(dir, 'web-dist');
  cpSync(join(ROOT, 'packages/web/dist'), target, { recursive: true });
  return target;
}

export function foyerBuilt() {
  return existsSync(MAIN) && existsSync(ADMIN) && existsSync(join(ROOT, 'packages/web/dist/index.html'));
}

/** `npm run build` at the root: the server (tsc -b) and the web app (vite build). */
export async function buildProduct() {
  await run('npm', ['run', 'build'], { cwd: ROOT });
}

/**
 * The environment of a production-mode Foyer on 127.0.0.1. FOYER_ENV=staging runs the production
 * code path (a deployed environment: https PUBLIC_URL, Secure cookies, HSTS) and, unlike prod,
 * accepts RATE_LIMITS=off; the harness speaks plain http to the port and sends its cookies
 * itself, and browsers treat 127.0.0.1 as a secure context. The cookie is `otter_staging`.
 */
export function foyerEnv({ port, databaseUrl, webDist, google }) {
  return {
    // A private copy of the built web app: a rebuild by someone else mid-run cannot pull the
    // files from under the measurement.
    ...(webDist ? { WEB_DIST: webDist } : {}),
    NODE_ENV: 'production',
    FOYER_ENV: 'staging',
    HOST: '127.0.0.1',
    PORT: String(port),
    PUBLIC_URL: `https://127.0.0.1:${port}`,
    DATABASE_URL: databaseUrl,
    LOG_LEVEL: 'warn',
    // Deployed environments require it (decision 0012); the harness's databases are thrown away.
    SECRET_KEY: 'bench-harness-secret-key-for-throwaway-databases',
    // A rate limiter would turn a load test into a test of the limiter (config.ts, decision 0010:
    // RATE_LIMITS=off disables every limit; meant for this harness only, and refused in prod).
    RATE_LIMITS: 'off',
    // /metrics (decision 0018), read between chunks for the event-loop delay, GC and heap.
    METRICS_TOKEN: METRICS_TOKEN,
    // Forum sign-in (decision 0021), for the DiscourseConnect round trip.
    DISCOURSE_CONNECT_SECRET: FORUM.secret,
    SERVER_URLS: JSON.stringify({ community: FORUM.origin }),
    // Google sign-in (decision 0019) against the harness's provider (bench/peer/google-provider.mjs),
    // an https issuer as a deployed environment requires, whose throwaway certificate Foyer trusts.
    ...(google
      ? {
          GOOGLE_ISSUER: google.issuer,
          GOOGLE_CLIENT_ID: google.clientId,
          GOOGLE_CLIENT_SECRET: google.clientSecret,
          NODE_EXTRA_CA_CERTS: google.caFile,
        }
      : {}),
  };
}

/** The forum the harness plays: its origin and DiscourseConnect secret. */
export const FORUM = { origin: 'https://forum.example.com', secret: 'bench-harness-discourse-connect-secret' };

export const METRICS_TOKEN = 'bench-harness-metrics-token-0123456789abcdef';

export const FOYER_COOKIE = 'otter_staging';

/** Creates the seeded accounts with the admin CLI (verified by default). */
export async function seedFoyer(env, users) {
  for (const user of users) {
    await run(
      process.execPath,
      [ADMIN, 'user', 'create', '--email', user.email, '--password', user.password, '--first-name', user.firstName, '--last-name', user.lastName],
      {
        cwd: ROOT,
        env,
      },
    );
  }
}

/** The organisation whose SAML connection the harness's IdP answers for (decision 0022). */
export const SAML_ORG = { name: 'Bench Corp', domain: 'bench-corp.example' };

/**
 * Creates the organisation, claiming its domain, and connects it to the harness's SAML IdP from
 * its metadata file, with the admin CLI as an operator would; returns what `sso add-saml` prints
 * to give the IdP: the connection's id, the SP entity ID and the assertion consumer's address.
 */
export async function seedSamlConnection(env, metadataFile) {
  const cli = (args) => run(process.execPath, [ADMIN, ...args], { cwd: ROOT, env });
  await cli(['org', 'create', '--name', SAML_ORG.name, '--domain', SAML_ORG.domain, '--sso-required']);
  const { stdout } = await cli(['sso', 'add-saml', '--org', SAML_ORG.name, '--metadata', metadataFile]);
  const field = (pattern) => {
    const value = pattern.exec(stdout)?.[1];
    if (!value) throw new Error(`sso add-saml printed no ${pattern}:\n${stdout}`);
    return value;
  };
  return {
    domain: SAML_ORG.domain,
    connectionId: field(/ as (\S+)$/m),
    entityId: field(/SP entity ID:\s+(\S+)/),
    acsUrl: field(/Assertion consumer \(POST\):\s+(\S+)/),
  };
}

/**
 * The node command of the root's `npm start` after its build step (`npm run build && node …`):
 * the server starts here exactly as an operator starts it, preloads included (threadpool.cjs
 * sizes libuv's pool before the ESM loader creates it; started without it, the pool keeps its 4
 * default threads and argon2 competes with file reads for them).
 */
export function npmStartArgs() {
  const { scripts } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  // `exec node …`: the shell npm runs the script in gives its place to node, so signals reach it.
  const command = scripts.start
    .split('&&')
    .at(-1)
    .trim()
    .replace(/^exec\s+/, '')
    .split(/\s+/);
  if (command[0] !== 'node' || command.at(-1) !== 'packages/server/dist/main.js') {
    throw new Error(`npm start runs "${scripts.start}": the harness expects it to end in node … packages/server/dist/main.js`);
  }
  return command.slice(1);
}

/** `extraNodeArgs` (the profiler's) go before npm start's own arguments. */
export async function startFoyer(env, extraNodeArgs = []) {
  const child = startChild(process.execPath, [...extraNodeArgs, ...npmStartArgs()], { cwd: ROOT, env });
  await waitForHttp(`http://127.0.0.1:${env.PORT}/healthz`, { child, timeoutMs: 30_000 });
  return child;
}

/** A fresh PostgreSQL database for one run; `drop()` removes it. */
export async function createPgDatabase(prefix = 'foyer_bench') {
  const { default: pg } = await import('pg');
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: PG_ADMIN_URL });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}
