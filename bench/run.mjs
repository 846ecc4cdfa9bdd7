#!/usr/bin/env node
// `npm run bench`: Foyer against the physical limit (raw argon2id on this machine) and against a
// peer (Better Auth), side by side in one run. Every judged figure is a ratio taken in this run;
// absolute figures stand beside it for context. See bench/README.md.
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startRawWorker, summarizeRaw } from './lib/argon2-raw.mjs';
import {
  buildProduct,
  copyWebDist,
  createPgDatabase,
  FORUM,
  FOYER_COOKIE,
  foyerBuilt,
  foyerEnv,
  METRICS_TOKEN,
  ROOT,
  SAML_ORG,
  seedFoyer,
  seedSamlConnection,
  startFoyer,
} from './lib/foyer.mjs';
import { selfSignedCertificate } from './lib/certificates.mjs';
import { startIdTokenWorker } from './lib/id-token-raw.mjs';
import { runLighthouse } from './lib/lighthouse.mjs';
import { drain, loadChunk, summarize } from './lib/load.mjs';
import { machineInfo, waitForQuiet } from './lib/machine.mjs';
import { scrapeFoyer } from './lib/metrics.mjs';
import {
  betterAuthVersion,
  startBetterAuth,
  startFixedAnswer,
  startForumFloor,
  startGoogleFloor,
  startGoogleProvider,
  startVerifyOnly,
} from './lib/peer.mjs';
import { freePort, residentByMapping, rssBytes, RssSampler, sleep, stopChild } from './lib/proc.mjs';
import { BUDGETS, loadRows, renderTable, webRows } from './lib/report.mjs';
import { samlIdp } from './lib/saml-idp.mjs';
import { SAML_FLOOR_THREADS, startSamlWorker } from './lib/saml-raw.mjs';
import { benchUsers, betterAuth, foyer, forumRequestBody, googleCallback, preflight } from './lib/scenarios.mjs';
import { CHROMIUM_PATH, measureWebWeight } from './lib/web-weight.mjs';

const USAGE = `Usage: npm run bench -- [options]

  --duration S    measured seconds of each load (default 10; at least 10 for a judged run),
                  taken in 1 s chunks interleaved with the other loads
  --warmup S      seconds of warm-up before each load, not measured (default 2)
  --settle S      seconds without requests before the "idle" RSS (once the loads' first requests
                  are made) and after the last load before the "settled" RSS (default 10)
  --pg            also run Foyer on a fresh PostgreSQL database (BENCH_PG_URL, default
                  postgres://postgres@127.0.0.1:5432/postgres)
  --skip-build    use the existing build instead of running \`npm run build\`
  --skip-web      skip the web weight and Lighthouse figures
  --skip-peer     skip Better Auth (the peer ratios are then void)
  --quiet-wait S  before each round, wait up to S seconds (default 30) for other processes to
                  leave the cores idle (< 0.25 cores busy); a round disturbed anyway is redone
  --only LIST     run only these loads, comma-separated: signin,signinFailed,session,forum,
                  google,saml
                  (for investigation: the other figures are then void)
  --profile       start Foyer with --cpu-prof; profiles land in bench/results/profiles/
                  (summarise one with: node bench/lib/profile-summary.mjs <file>)
  --users N       seeded accounts the sign-in rotates through (default 8)
  -h, --help      this text
`;

const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '2' },
    settle: { type: 'string', default: '10' },
    pg: { type: 'boolean', default: false },
    'skip-build': { type: 'boolean', default: false },
    'skip-web': { type: 'boolean', default: false },
    'skip-peer': { type: 'boolean', default: false },
    'quiet-wait': { type: 'string', default: '30' },
    only: { type: 'string' },
    profile: { type: 'boolean', default: false },
    users: { type: 'string', default: '8' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (args.help) {
  process.stdout.write(USAGE);
  process.exit(0);
}
const DURATION = Number(args.duration);
const WARMUP = Number(args.warmup);
const SETTLE = Number(args.settle);
const USER_COUNT = Number(args.users);
const QUIET_WAIT = Number(args['quiet-wait']);
const optional = new Set(['warmup', 'settle', 'quiet-wait']);
for (const [name, value] of [
  ['duration', DURATION],
  ['warmup', WARMUP],
  ['settle', SETTLE],
  ['users', USER_COUNT],
  ['quiet-wait', QUIET_WAIT],
]) {
  if (!Number.isFinite(value) || value < 0 || (!optional.has(name) && value <= 0)) {
    process.stderr.write(`bench: --${name} must be a positive number\n${USAGE}`);
    process.exit(2);
  }
}

// The issue's concurrencies; the raw argon2id rate runs with as many in flight as sign-in has.
const CONNECTIONS = { signin: 8, signinFailed: 8, session: 32, forum: 8, google: 8, saml: 8 };
const RAW_CONCURRENCY = CONNECTIONS.signin;
// Each phase interleaves its loads in rounds of about 1 s per load: this machine's speed moves
// from second to second, and fine interleaving lets every load see the same mix of it.
const ROUNDS = Math.max(1, Math.round(DURATION));
const CHUNK_SECONDS = DURATION / ROUNDS;
// A round during which other processes kept more than NOISE_CORES busy is measured again
// (at most MAX_REDONE times per phase); before each round the harness waits for quiet.
const QUIET_CORES = 0.25;
const NOISE_CORES = 0.25;
const MAX_REDONE = ROUNDS;
const ONLY = args.only ? new Set(args.only.split(',').map((name) => name.trim())) : null;
for (const name of ONLY ?? []) {
  if (!(name in CONNECTIONS)) {
    process.stderr.write(`bench: --only knows ${Object.keys(CONNECTIONS).join(', ')}, not ${name}\n`);
    process.exit(2);
  }
}
const selected = (name) => !ONLY || ONLY.has(name);
const WEB_ROUTES = ['/sign-in', '/sign-up', '/reset-password/x'];
const LIGHTHOUSE_RUNS = 3;
const RESULTS_DIR = join(ROOT, 'bench/results');
const PROFILE_DIR = join(RESULTS_DIR, 'profiles');

const started = Date.now();
const log = (message) => process.stderr.write(`[bench ${((Date.now() - started) / 1000).toFixed(0).padStart(3)} s] ${message}\n`);
const failures = []; // scenarios that could not run, or were void
const children = new Set();
const cleanups = [];

async function cleanup() {
  for (const child of children) await stopChild(child).catch(() => {});
  children.clear();
  while (cleanups.length)
    await cleanups
      .pop()()
      .catch((error) => log(`cleanup: ${error.message}`));
}
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    log(`${signal}: stopping the servers`);
    cleanup().finally(() => process.exit(130));
  });
}

// Waiting for other processes is capped for the whole run, so a busy machine slows the run down
// by a few minutes at most; figures taken in noise are flagged in the report.
let waitBudgetMs = QUIET_WAIT * 4 * 1000;
let redoBudget = MAX_REDONE * 2;
const REDO_BUDGET = redoBudget;
const noisy = [];
async function quiet(extraPids = []) {
  const begin = Date.now();
  const load = await waitForQuiet({
    pids: [...[...children].map((child) => child.pid), ...extraPids],
    threshold: QUIET_CORES,
    maxMs: Math.min(QUIET_WAIT * 1000, waitBudgetMs),
    onWait: (cores) =>
      log(`other processes keep ${cores.toFixed(2)} cores busy: waiting up to ${Math.round(Math.min(QUIET_WAIT * 1000, waitBudgetMs) / 1000)} s`),
  });
  waitBudgetMs = Math.max(0, waitBudgetMs - (Date.now() - begin));
  return load;
}

function describe(result) {
  if (result.void) {
    return `VOID: ${result.unexpected} unexpected, ${result.errors} errors, ${result.timeouts} timeouts; first: ${result.firstUnexpected ?? '–'}; statuses ${JSON.stringify(result.statuses)}`;
  }
  return `${result.rps.toFixed(1)} req/s (chunks ${result.chunkRps.join(', ')}), p50 ${result.latencyMs.p50} ms, p99 ${result.latencyMs.p99} ms`;
}

/**
 * One phase: its parts (loads of one or both servers, and perhaps a raw rate: argon2id, or a
 * flow's cryptography alone) measured in ROUNDS rounds, one part after another within a round,
 * never two at once. A machine whose speed drifts then drifts for every part alike, so the ratios
 * between them stay fair. A scenario whose requests need work done beforehand (`prepare`) has it
 * done before each of its chunks, outside the chunk's measurement.
 * @param {string} label
 * @param {Array<{ key: string, system: string, name: string, scenario?: object, pid?: number, helperPids?: number[], raw?: object, concurrency?: number }>} parts
 *   `helperPids`: processes the scenario's requests need besides the server (the Google provider);
 *   `concurrency`: of a raw part (default RAW_CONCURRENCY)
 * @param {{ database?: string }} [options] `postgres`: its processes' CPU belongs to the loads
 */
async function phase(label, parts, { database } = {}) {
  const live = [];
  for (const part of parts) {
    if (part.raw) {
      live.push(part);
      continue;
    }
    try {
      await preflight(part.scenario);
      live.push(part);
    } catch (error) {
      log(`${part.system}: ${part.name} could not run: ${error.message}`);
      failures.push({ scenario: `${part.system} ${part.name}`, message: error.message });
    }
  }
  const out = {};
  if (live.length === 0) return out;
  const pids = live.flatMap((part) => [part.pid ?? part.raw?.pid, ...(part.helperPids ?? [])]).filter(Boolean);
  log(
    `${label}: ${live.map((part) => `${part.system} ${part.name}`).join(', ')}; ${ROUNDS} rounds of ${CHUNK_SECONDS.toFixed(1)} s each, after ${WARMUP} s warm-up each`,
  );
  const chunks = Object.fromEntries(live.map((part) => [part.key, []]));
  let redone = 0;
  let noisyInARow = 0;
  try {
    await quiet(pids);
    for (const part of live) {
      if (part.raw || WARMUP <= 0) continue;
      await part.scenario.prepare?.(WARMUP);
      await loadChunk(part.scenario, { connections: CONNECTIONS[part.name], seconds: WARMUP, pid: part.pid, database });
      await drain(pids);
    }
    while (chunks[live[0].key].length < ROUNDS) {
      await drain(pids);
      await quiet(pids);
      const round = [];
      for (const part of live) {
        if (!part.raw) await part.scenario.prepare?.(CHUNK_SECONDS);
        await drain(pids);
        round.push(
          part.raw
            ? await part.raw.measure(CHUNK_SECONDS, part.concurrency ?? RAW_CONCURRENCY)
            : await loadChunk(part.scenario, {
                connections: CONNECTIONS[part.name],
                seconds: CHUNK_SECONDS,
                pid: part.pid,
                database,
                helperPids: part.helperPids,
                metrics: part.metrics,
              }),
        );
      }
      const noise = Math.max(...round.map((chunk) => chunk.otherCores ?? 0));
      if (noise > NOISE_CORES) {
        noisyInARow += 1;
        // Three disturbed rounds in a row: the machine is busy for good, so stop retrying.
        if (redone < MAX_REDONE && redoBudget > 0 && noisyInARow <= 3) {
          redone += 1;
          redoBudget -= 1;
          log(`${label}: other processes took ${noise.toFixed(2)} cores during a round: measuring it again`);
          continue;
        }
        noisy.push(label);
        log(`${label}: other processes took ${noise.toFixed(2)} cores during a round, kept (no retries left): these figures are unreliable`);
      } else {
        noisyInARow = 0;
      }
      live.forEach((part, i) => chunks[part.key].push(round[i]));
    }
  } catch (error) {
    failures.push({ scenario: label, message: error.message });
    log(`${label} failed: ${error.message}`);
    return out;
  }
  for (const part of live) {
    if (part.raw) {
      out[part.key] = summarizeRaw(chunks[part.key]);
      const raw = out[part.key];
      log(
        `${part.system} ${part.name}: ${raw.rate.toFixed(1)} verifies/s (chunks ${raw.chunkRates.join(', ')}), ${raw.cpuMsPerVerify.toFixed(3)} ms CPU each, ${raw.cpuCores.toFixed(2)} cores busy`,
      );
    } else {
      out[part.key] = summarize(chunks[part.key], CONNECTIONS[part.name]);
      log(`${part.system}: ${part.name}: ${describe(out[part.key])}`);
      if (out[part.key].void) failures.push({ scenario: `${part.system} ${part.name}`, message: `void: ${describe(out[part.key])}` });
    }
    out[part.key].roundsRedone = redone;
  }
  return out;
}

/**
 * What holds Foyer's memory, as far as it can be told from outside: the V8 heap and the memory
 * outside it that V8 knows of (buffers), from its own metrics; the most argon2id can hold at once
 * (its memory cost for each hashing slot, one per core, decision 0011); SQLite's page cache at
 * most (the cache_size Foyer's connection sets, SQLITE_PAGE_CACHE_KIB in db/database.ts: 2000 KiB;
 * with PostgreSQL, none); the web build
 * held in memory (the index page: assets are read from disk per request). The rest of the RSS is
 * code, V8's own structures, native libraries and the allocator's free lists.
 */
async function memoryHeld(server) {
  try {
    const figures = await server.metrics();
    const argon2KiB = Number(server.env.ARGON2_MEMORY_KIB ?? 19456);
    let indexBytes = null;
    try {
      indexBytes = statSync(join(server.webDist, 'index.html')).size;
    } catch {
      // no web build
    }
    return {
      residentBytes: figures.residentBytes,
      heapUsedBytes: figures.heapUsedBytes,
      heapTotalBytes: figures.heapTotalBytes,
      externalBytes: figures.externalBytes,
      heapSpaces: figures.heapSpaces,
      argon2MaxBytes: argon2KiB * 1024 * availableParallelism(),
      sqlitePageCacheMaxBytes: server.kind === 'sqlite' ? 2000 * 1024 : 0,
      webBuildBytes: indexBytes,
    };
  } catch (error) {
    log(`metrics of Foyer could not be read: ${error.message}`);
    return null;
  }
}

/**
 * The Google provider for a Foyer on `foyerPort`: its own process, over https with a certificate
 * made for this run, started before Foyer, whose environment names it (lib/foyer.mjs, foyerEnv).
 */
async function launchGoogleProvider(dir, foyerPort) {
  const tls = selfSignedCertificate(dir, 'google-provider', { subject: 'Foyer bench Google provider', ip: '127.0.0.1' });
  // Foyer's redirect URI: PUBLIC_URL and the social-auth-callback route (google.client.ts).
  const redirectUri = `https://127.0.0.1:${foyerPort}/social-auth-callback`;
  const child = await startGoogleProvider({ port: await freePort(), redirectUri, certFile: tls.certFile, keyFile: tls.keyFile });
  children.add(child);
  const { issuer, clientId, clientSecret } = child.ready;
  log(`Google provider (oidc-provider, its own process): ${issuer}`);
  return { child, issuer, clientId, clientSecret, caFile: tls.certFile, ca: tls.cert, redirectUri };
}

/**
 * A fresh database for Foyer, seeded; returns its environment. With the Google callback selected,
 * its provider is started first; with the SAML consumer, the organisation and its connection to
 * the harness's IdP are made with the admin CLI.
 */
async function prepareFoyer(kind, users) {
  const port = await freePort();
  let databaseUrl;
  const info = {};
  const dir = mkdtempSync(join(tmpdir(), 'foyer-bench-'));
  cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
  const webDist = copyWebDist(dir);
  if (kind === 'sqlite') {
    databaseUrl = join(dir, 'foyer.sqlite');
  } else {
    const database = await createPgDatabase();
    cleanups.push(() => database.drop());
    databaseUrl = database.url;
    info.pgDatabase = database.name;
  }
  const google = selected('google') ? await launchGoogleProvider(dir, port) : undefined;
  const env = foyerEnv({ port, databaseUrl, webDist, google });
  log(`Foyer (${kind}): seeding ${users.length} accounts with the admin CLI`);
  await seedFoyer(env, users);
  let saml;
  if (selected('saml')) {
    const idp = samlIdp(dir);
    saml = { idp, ...(await seedSamlConnection(env, idp.metadataFile)) };
    log(`Foyer (${kind}): organisation ${SAML_ORG.name} (${SAML_ORG.domain}) connected to the harness's SAML IdP with the admin CLI`);
  }
  return { env, port, info, google, saml };
}

async function launchFoyer(kind, users) {
  const { env, port, info, google, saml } = await prepareFoyer(kind, users);
  const nodeArgs = [];
  if (args.profile) {
    mkdirSync(PROFILE_DIR, { recursive: true });
    nodeArgs.push('--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`, `--cpu-prof-name=foyer-${kind}-${Date.now()}.cpuprofile`);
  }
  const child = await startFoyer(env, nodeArgs);
  children.add(child);
  const baseUrl = `http://127.0.0.1:${port}`;
  log(`Foyer (${kind}): listening on ${baseUrl} (FOYER_ENV=staging, NODE_ENV=production)`);
  return {
    name: `Foyer (${kind})`,
    child,
    baseUrl,
    info,
    webDist: env.WEB_DIST,
    env,
    kind,
    google,
    saml,
    metrics: () => scrapeFoyer(baseUrl, METRICS_TOKEN),
    scenarios: await foyer.scenarios(baseUrl, users, { cookieName: FOYER_COOKIE, forum: FORUM, google, saml }),
  };
}

async function launchPeer(users, kind = 'sqlite') {
  const port = await freePort();
  let where;
  if (kind === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'peer-bench-'));
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
    where = { dbFile: join(dir, 'auth.sqlite') };
  } else {
    const database = await createPgDatabase('peer_bench');
    cleanups.push(() => database.drop());
    where = { databaseUrl: database.url };
  }
  log(
    `Better Auth ${betterAuthVersion()}: starting on a fresh ${kind === 'sqlite' ? 'SQLite file' : 'PostgreSQL database'}, seeding ${users.length} accounts`,
  );
  const child = await startBetterAuth({ port, ...where, users });
  children.add(child);
  const baseUrl = `http://127.0.0.1:${port}`;
  return { name: `Better Auth (${kind})`, child, baseUrl, scenarios: await betterAuth.scenarios(baseUrl, users) };
}

/** The floor (node:http + argon2id verify only), measured beside Foyer's sign-in for context. */
async function launchFloor(users) {
  const port = await freePort();
  const child = await startVerifyOnly({ port, users });
  children.add(child);
  const baseUrl = `http://127.0.0.1:${port}`;
  const sha256Hex = (text) => createHash('sha256').update(text).digest('hex');
  return {
    name: 'verify-only floor',
    child,
    scenario: {
      method: 'POST',
      url: `${baseUrl}/api/account/signin`,
      headers: { 'content-type': 'application/json' },
      bodies: users.map((user) => JSON.stringify({ email: user.email, hashPassword: sha256Hex(user.password), deviceId: user.deviceId })),
      expect: (status, text) => status === 200 && text.startsWith('{"otter":"'),
    },
  };
}

/**
 * The cheap-call floor: a bare node:http server giving, to every request, the very answer Foyer
 * gives to the session check (status, headers and body), measured beside it.
 */
async function launchFixedAnswer(sessionScenario) {
  const response = await fetch(sessionScenario.url, { headers: sessionScenario.headers, signal: AbortSignal.timeout(10_000) });
  const body = await response.text();
  if (!sessionScenario.expect(response.status, body)) throw new Error(`the session check answered ${response.status} ${body.slice(0, 200)}`);
  // Hop-by-hop and per-answer headers are node:http's own business there, as they are Foyer's.
  const skip = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding', 'content-length']);
  const headers = Object.fromEntries([...response.headers].filter(([name]) => !skip.has(name)));
  const port = await freePort();
  const child = await startFixedAnswer({ port, answer: { status: response.status, headers, body } });
  children.add(child);
  return {
    name: 'fixed-answer floor',
    child,
    scenario: { method: 'GET', url: `http://127.0.0.1:${port}/api/account/session`, headers: sessionScenario.headers, expect: sessionScenario.expect },
  };
}

/**
 * The Google callback's floor: the code redeemed at the same provider over https and the ID token
 * validated, in a bare server, loaded as Foyer's callback is (codes obtained beforehand).
 */
async function launchGoogleFloor(users, google) {
  const port = await freePort();
  const child = await startGoogleFloor({ port, google });
  children.add(child);
  return {
    name: 'Google callback floor',
    child,
    scenario: await googleCallback(`http://127.0.0.1:${port}`, users, { 'content-type': 'application/json' }, google),
  };
}

/** The DiscourseConnect floor, answering for the first seeded account as Foyer does. */
async function launchForumFloor(users) {
  const port = await freePort();
  const [first] = users;
  const user = {
    email: first.email,
    name: `${first.firstName} ${first.lastName}`,
    username: `${first.firstName}${first.lastName}`,
    externalId: 'x'.repeat(26),
  };
  const child = await startForumFloor({ port, secret: FORUM.secret, user });
  children.add(child);
  return {
    name: 'DiscourseConnect floor',
    child,
    scenario: {
      method: 'POST',
      url: `http://127.0.0.1:${port}/api/community/discourseSso`,
      headers: { 'content-type': 'application/json' },
      body: () => forumRequestBody(FORUM),
      expect: (status, text) => status === 200 && text.startsWith(`{"termsAgreed":true,"redirectUrl":"${FORUM.origin}`),
    },
  };
}

async function stop(server) {
  if (!server) return;
  await stopChild(server.child);
  children.delete(server.child);
}

/**
 * One Foyer pass beside the peer: both servers up (idle while the other is loaded), idle RSS,
 * the sign-in phase (raw argon2id, Foyer's and the peer's sign-ins and failed sign-ins, in turn),
 * the session phase (Foyer's and the peer's session checks, in turn), settled RSS.
 */
async function pass(kind, users, peer) {
  const server = await launchFoyer(kind, users);
  const result = { database: kind, ...server.info, settleSeconds: SETTLE, loads: {}, memory: {} };
  const peerResult = peer ? { system: 'better-auth', version: betterAuthVersion(), database: kind, settleSeconds: SETTLE, loads: {}, memory: {} } : null;
  try {
    // Idle: the scenarios' first requests (accounts linked, SAML responses) are made; the threads
    // they started end and the idle collection runs once the service has been quiet a while.
    log(`idle ${SETTLE} s, then idle RSS`);
    await sleep(SETTLE * 1000);
    result.memory.idle = rssBytes(server.child.pid);
    result.memory.idleHeld = await memoryHeld(server);
    result.memory.idleByMapping = residentByMapping(server.child.pid);
    if (peerResult) peerResult.memory.idle = rssBytes(peer.child.pid);
    if (peerResult) peerResult.memory.idleByMapping = residentByMapping(peer.child.pid);
    const samplers = [new RssSampler(server.child.pid).start(), peerResult ? new RssSampler(peer.child.pid).start() : null];

    const raw = selected('signin') ? startRawWorker() : null;
    let floor = null;
    try {
      const parts = [];
      if (raw) parts.push({ key: 'raw', system: 'argon2id', name: 'raw verify', raw });
      if (raw) {
        try {
          floor = await launchFloor(users);
          parts.push({ key: 'floor.signin', system: floor.name, name: 'signin', scenario: floor.scenario, pid: floor.child.pid });
        } catch (error) {
          log(`the verify-only floor could not start: ${error.message}`);
        }
      }
      for (const name of ['signin', 'signinFailed'].filter(selected)) {
        parts.push({ key: `foyer.${name}`, system: server.name, name, scenario: server.scenarios[name], pid: server.child.pid, metrics: server.metrics });
        if (peer) parts.push({ key: `peer.${name}`, system: peer.name, name, scenario: peer.scenarios[name], pid: peer.child.pid });
      }
      const signin = parts.length ? await phase(`${server.name} sign-in phase`, parts, { database: kind === 'postgres' ? 'postgres' : undefined }) : {};
      result.rawRate = signin.raw ?? null;
      if (raw && !signin.raw) failures.push({ scenario: 'raw argon2id', message: 'not measured' });
      result.loads.signin = signin['foyer.signin'] ?? null;
      result.loads.signinFailed = signin['foyer.signinFailed'] ?? null;
      result.floor = signin['floor.signin'] ?? null;
      if (peerResult) {
        peerResult.loads.signin = signin['peer.signin'] ?? null;
        peerResult.loads.signinFailed = signin['peer.signinFailed'] ?? null;
      }
    } finally {
      raw?.stop();
      await stop(floor);
    }
    result.memory.afterSigninPhase = rssBytes(server.child.pid);

    if (selected('session')) {
      let cheapFloor = null;
      try {
        const parts = [];
        try {
          cheapFloor = await launchFixedAnswer(server.scenarios.session);
          parts.push({ key: 'floor.session', system: cheapFloor.name, name: 'session', scenario: cheapFloor.scenario, pid: cheapFloor.child.pid });
        } catch (error) {
          log(`the fixed-answer floor could not start: ${error.message}`);
          failures.push({ scenario: 'fixed-answer floor', message: error.message });
        }
        parts.push({
          key: 'foyer.session',
          system: server.name,
          name: 'session',
          scenario: server.scenarios.session,
          pid: server.child.pid,
          metrics: server.metrics,
        });
        if (peer) parts.push({ key: 'peer.session', system: peer.name, name: 'session', scenario: peer.scenarios.session, pid: peer.child.pid });
        const session = await phase(`${server.name} session phase`, parts, { database: kind === 'postgres' ? 'postgres' : undefined });
        result.loads.session = session['foyer.session'] ?? null;
        result.sessionFloor = session['floor.session'] ?? null;
        if (peerResult) peerResult.loads.session = session['peer.session'] ?? null;
      } finally {
        await stop(cheapFloor);
      }
    }

    if (selected('forum')) {
      // Decision 0021's round trip beside the cost of its own cryptography alone.
      let forumFloor = null;
      try {
        const parts = [];
        try {
          forumFloor = await launchForumFloor(users);
          parts.push({ key: 'floor.forum', system: forumFloor.name, name: 'forum', scenario: forumFloor.scenario, pid: forumFloor.child.pid });
        } catch (error) {
          log(`the DiscourseConnect floor could not start: ${error.message}`);
          failures.push({ scenario: 'DiscourseConnect floor', message: error.message });
        }
        parts.push({
          key: 'foyer.forum',
          system: server.name,
          name: 'forum',
          scenario: server.scenarios.forum,
          pid: server.child.pid,
          metrics: server.metrics,
        });
        const forum = await phase(`${server.name} forum phase`, parts, { database: kind === 'postgres' ? 'postgres' : undefined });
        result.loads.forum = forum['foyer.forum'] ?? null;
        result.forumFloor = forum['floor.forum'] ?? null;
      } finally {
        await stop(forumFloor);
      }
    }

    if (selected('google')) {
      // Decision 0019's callback beside its floor (the code exchange and the ID token's validation
      // in a bare server, at the same provider) and, for context, the validation alone.
      const validation = startIdTokenWorker({ issuer: server.google.issuer, clientId: server.google.clientId });
      let googleFloor = null;
      try {
        const parts = [{ key: 'floor.googleValidation', system: 'RS256 ID token', name: 'validation', raw: validation, concurrency: CONNECTIONS.google }];
        try {
          googleFloor = await launchGoogleFloor(users, server.google);
          parts.push({
            key: 'floor.google',
            system: googleFloor.name,
            name: 'google',
            scenario: googleFloor.scenario,
            pid: googleFloor.child.pid,
            helperPids: [server.google.child.pid],
          });
        } catch (error) {
          log(`the Google callback floor could not start: ${error.message}`);
          failures.push({ scenario: 'Google callback floor', message: error.message });
        }
        parts.push({
          key: 'foyer.google',
          system: server.name,
          name: 'google',
          scenario: server.scenarios.google,
          pid: server.child.pid,
          helperPids: [server.google.child.pid],
          metrics: server.metrics,
        });
        const google = await phase(`${server.name} Google phase`, parts, { database: kind === 'postgres' ? 'postgres' : undefined });
        result.loads.google = google['foyer.google'] ?? null;
        result.googleFloor = google['floor.google'] ?? null;
        result.googleValidation = google['floor.googleValidation'] ?? null;
      } finally {
        validation.stop();
        await stop(googleFloor);
      }
    }

    if (selected('saml')) {
      // Decision 0022's assertion consumer beside the XML-signature check of its responses alone.
      const floor = startSamlWorker({ cert: server.saml.idp.cert, responses: server.scenarios.saml.signedResponses });
      try {
        const parts = [
          { key: 'floor.saml', system: 'XML signature', name: 'check', raw: floor, concurrency: SAML_FLOOR_THREADS },
          { key: 'foyer.saml', system: server.name, name: 'saml', scenario: server.scenarios.saml, pid: server.child.pid, metrics: server.metrics },
        ];
        const saml = await phase(`${server.name} SAML phase`, parts, { database: kind === 'postgres' ? 'postgres' : undefined });
        result.loads.saml = saml['foyer.saml'] ?? null;
        result.samlFloor = saml['floor.saml'] ?? null;
      } finally {
        floor.stop();
      }
    }

    result.memory.afterSessionPhase = rssBytes(server.child.pid);
    result.memory.peak = samplers[0].stop();
    if (peerResult) peerResult.memory.peak = samplers[1].stop();
    log(`idle ${SETTLE} s, then settled RSS`);
    await sleep(SETTLE * 1000);
    result.memory.settled = rssBytes(server.child.pid);
    result.memory.settledHeld = await memoryHeld(server);
    result.memory.settledByMapping = residentByMapping(server.child.pid);
    if (peerResult) peerResult.memory.settled = rssBytes(peer.child.pid);
    if (peerResult) peerResult.memory.settledByMapping = residentByMapping(peer.child.pid);

    if (kind === 'sqlite' && !args['skip-web']) {
      try {
        await quiet();
        log(`web: first load of ${WEB_ROUTES.join(', ')} in Chromium`);
        result.web = await measureWebWeight(server.baseUrl, WEB_ROUTES);
        for (const [route, figures] of Object.entries(result.web)) {
          if (figures.problems.length) failures.push({ scenario: `web weight ${route}`, message: `void: ${figures.problems.join('; ')}` });
        }
      } catch (error) {
        failures.push({ scenario: 'web weight', message: error.message });
      }
      try {
        // Lighthouse scores vary from run to run: the median of LIGHTHOUSE_RUNS, by performance.
        const runs = [];
        for (let i = 0; i < LIGHTHOUSE_RUNS; i++) {
          await quiet();
          log(`web: Lighthouse on /sign-in (mobile), run ${i + 1} of ${LIGHTHOUSE_RUNS}`);
          let run = await runLighthouse(`${server.baseUrl}/sign-in`);
          if (run.runtimeError) {
            // Lighthouse now and then fails to record a trace (NO_NAVSTART): one more try.
            log(`web: Lighthouse said ${run.runtimeError}; trying once more`);
            run = await runLighthouse(`${server.baseUrl}/sign-in`);
          }
          if (run.runtimeError) throw new Error(run.runtimeError);
          runs.push(run);
        }
        runs.sort((a, b) => a.performance - b.performance);
        result.lighthouse = {
          ...runs[Math.floor(runs.length / 2)],
          runs: runs.map(({ performance, accessibility, lcpMs, fcpMs, tbtMs }) => ({ performance, accessibility, lcpMs, fcpMs, tbtMs })),
        };
        log(
          `web: Lighthouse performance ${runs.map((run) => run.performance).join(', ')}; accessibility ${runs.map((run) => run.accessibility).join(', ')}`,
        );
      } catch (error) {
        failures.push({ scenario: 'lighthouse', message: error.message });
      }
    }
  } finally {
    await stop(server);
    await stop(server.google);
  }
  return { result, peerResult };
}

async function main() {
  const machine = machineInfo({ chromiumPath: CHROMIUM_PATH });
  log(`${machine.cores} cores (${machine.cpuModel}), Node ${machine.node}, ${machine.memoryGiB} GiB`);
  const users = benchUsers(USER_COUNT);
  const results = {
    date: new Date().toISOString(),
    machine,
    options: {
      duration: DURATION,
      rounds: ROUNDS,
      warmup: WARMUP,
      settle: SETTLE,
      quietWait: QUIET_WAIT,
      noiseCores: NOISE_CORES,
      pg: args.pg,
      users: USER_COUNT,
      connections: CONNECTIONS,
      rawConcurrency: RAW_CONCURRENCY,
      only: args.only ?? null,
    },
    budgets: BUDGETS,
    foyer: {},
    peer: null,
    failures,
  };

  let foyerReady = false;
  if (args['skip-build']) {
    foyerReady = foyerBuilt();
    if (!foyerReady) failures.push({ scenario: 'build', message: '--skip-build, but packages/server/dist or packages/web/dist is missing' });
  } else {
    log('building the product (npm run build)');
    try {
      await buildProduct();
      foyerReady = foyerBuilt();
      if (!foyerReady) failures.push({ scenario: 'build', message: 'npm run build left no server or web build' });
    } catch (error) {
      failures.push({ scenario: 'build', message: error.message.slice(0, 4000) });
      log(`build failed:\n${error.message.slice(0, 4000)}`);
    }
  }

  const peers = [];
  async function peerFor(kind) {
    if (args['skip-peer']) return null;
    try {
      const peer = await launchPeer(users, kind);
      peers.push(peer);
      return peer;
    } catch (error) {
      failures.push({ scenario: `Better Auth (${kind})`, message: error.message });
      log(`Better Auth (${kind}) could not run: ${error.message}`);
      return null;
    }
  }
  results.peers = {};
  try {
    for (const kind of args.pg ? ['sqlite', 'postgres'] : ['sqlite']) {
      // Each Foyer pass has its peer on the same kind of database, both up during the pass.
      const peer = await peerFor(kind);
      try {
        if (foyerReady) {
          const { result, peerResult } = await pass(kind, users, peer);
          results.foyer[kind] = result;
          if (peerResult) results.peers[kind] = peerResult;
        } else if (peer) {
          // Without a Foyer build, the peer is still measured, so the harness shows it works.
          const result = {
            system: 'better-auth',
            version: betterAuthVersion(),
            database: kind,
            settleSeconds: SETTLE,
            loads: {},
            memory: { idle: rssBytes(peer.child.pid) },
          };
          const parts = ['signin', 'signinFailed', 'session']
            .filter(selected)
            .map((name) => ({ key: name, system: peer.name, name, scenario: peer.scenarios[name], pid: peer.child.pid }));
          Object.assign(result.loads, await phase(`${peer.name} alone`, parts));
          results.peers[kind] = result;
        }
      } catch (error) {
        failures.push({ scenario: `Foyer (${kind})`, message: error.message });
        log(`Foyer (${kind}) could not run: ${error.message}`);
      } finally {
        await stop(peer);
      }
    }
  } finally {
    for (const peer of peers) await stop(peer);
    await cleanup();
  }
  results.peer = results.peers.sqlite ?? null;

  // The table: every judged figure is a ratio from this run.
  const rows = [];
  const budgets = [];
  const empty = { loads: {}, memory: {}, settleSeconds: SETTLE };
  const sqlite = results.foyer.sqlite ?? empty;
  const primary = loadRows(sqlite, results.peer, args.pg ? 'sqlite' : '');
  rows.push(...primary.rows);
  budgets.push(...primary.budgets);
  if (!args['skip-web']) {
    const web = webRows(sqlite.web, sqlite.lighthouse);
    if (!sqlite.web) budgets.push({ id: 'sign-in-js', value: null, result: 'void' });
    if (!sqlite.lighthouse) budgets.push({ id: 'lighthouse', value: null, result: 'void' });
    rows.push(...web.rows);
    budgets.push(...web.budgets);
  }
  if (args.pg) {
    const postgres = results.foyer.postgres ?? empty;
    // Beside Foyer on PostgreSQL, the peer ran on PostgreSQL too.
    const pg = loadRows(postgres, results.peers.postgres ?? null, 'pg');
    rows.push({ figure: '' }, ...pg.rows);
    budgets.push(...pg.budgets);
  }
  results.budgetResults = budgets;
  const table = renderTable(rows);
  results.table = table;
  results.tableMarkdown = renderTable(rows, { markdown: true });
  results.seconds = Math.round((Date.now() - started) / 1000);

  const others = [results.foyer.sqlite, results.foyer.postgres, results.peers.sqlite, results.peers.postgres]
    .flatMap((p) => [...Object.values(p?.loads ?? {}), p?.rawRate, p?.googleFloor, p?.googleValidation, p?.samlFloor])
    .filter(Boolean);
  const noise = others.map((load) => load.otherCoresMax).filter((value) => typeof value === 'number');
  const redone = REDO_BUDGET - redoBudget;
  const header = [
    `Foyer bench ${results.date}`,
    `machine: ${machine.cores} cores ${machine.cpuModel}, ${machine.memoryGiB} GiB, ${machine.os}; Node ${machine.node}; ${machine.chromium ?? 'no chromium'}; commit ${machine.commit ?? '?'}`,
    `load: autocannon; each load ${DURATION} s in ${ROUNDS} interleaved rounds after ${WARMUP} s warm-up; sign-in c=${CONNECTIONS.signin}, session c=${CONNECTIONS.session}; peer: better-auth ${results.peer?.version ?? betterAuthVersion()}`,
  ];
  if (noise.length)
    header.push(`other processes during the kept rounds: up to ${Math.max(...noise).toFixed(2)} cores busy; rounds measured again: ${redone}`);
  if (noisy.length)
    header.push(`WARNING: other processes disturbed rounds that had to be kept (${[...new Set(noisy)].join('; ')}): run again on a quiet machine`);
  results.noisy = [...new Set(noisy)];
  results.header = header;
  process.stdout.write(`\n${header.join('\n')}\n\n${table}\n`);
  const shortfalls = budgets.filter((b) => b.result === 'fall short').map((b) => b.id);
  process.stdout.write(
    `\nbudgets: ${budgets.filter((b) => b.result === 'pass').length} pass, ${shortfalls.length} fall short${shortfalls.length ? ` (${shortfalls.join(', ')})` : ''}, ${budgets.filter((b) => b.result === 'void').length} void\n`,
  );
  if (failures.length) {
    process.stdout.write(
      `\nscenarios that could not run or were void:\n${failures.map((f) => `  - ${f.scenario}: ${f.message.split('\n')[0]}`).join('\n')}\n`,
    );
  }

  mkdirSync(RESULTS_DIR, { recursive: true });
  const file = join(RESULTS_DIR, `${results.date.slice(0, 10)}.json`);
  writeFileSync(`${file}.tmp`, `${JSON.stringify(results, null, 2)}\n`);
  renameSync(`${file}.tmp`, file);
  process.stdout.write(`\nresults: ${file.slice(ROOT.length + 1)} (${results.seconds} s)\n`);
  // A budget that falls short is a finding, not a failure of the harness; a scenario that could
  // not run (or was void) is.
  process.exitCode = failures.length ? 1 : 0;
}

main().catch(async (error) => {
  process.stderr.write(`bench: ${error.stack ?? error}\n`);
  await cleanup();
  process.exit(1);
});
