// The judged figures (ratios taken in the same run), the budgets, and the printed table.

export const KB = 1000;
export const MB = 1000 * 1000;

export const BUDGETS = {
  // Foyer's sign-in rate over the verify-only floor's (node:http + one argon2id verify) in the
  // same rounds: the raw argon2id rate no HTTP server reaches on two cores shared with the load
  // generator stays in the table for context (decision 0029).
  signinVsFloor: 0.95,
  signinTail: 2.5,
  failedCost: [0.9, 1.1],
  // The session check over the fixed-answer floor (node:http giving Foyer's own answer) and over
  // Better Auth's get-session, in the same rounds.
  sessionVsFloor: 0.5,
  sessionVsPeer: 10,
  // Settled RSS over the peer's settled RSS in the same run.
  settledVsPeer: 1,
  // A flow whose cost is its cryptography over that cryptography alone, in the same rounds: a
  // node:http server doing only the forum's HMAC and base64, or only the Google callback's code
  // exchange and ID-token validation; a loop checking the SAML response's XML signature.
  flowVsCryptoFloor: 0.8,
  signInJsBytes: 80 * KB,
  lighthousePerformance: 95,
  lighthouseAccessibility: 100,
  settledRssBytes: 200 * MB,
};

const isNum = (value) => typeof value === 'number' && Number.isFinite(value);

function fmt(value, digits) {
  if (!isNum(value)) return '–';
  if (digits !== undefined) return value.toFixed(digits);
  const abs = Math.abs(value);
  if (abs >= 1000) return Math.round(value).toLocaleString('en-US');
  if (abs >= 100) return value.toFixed(0);
  if (abs >= 10) return value.toFixed(1);
  return value.toFixed(2);
}
const mb = (bytes) => (isNum(bytes) ? `${(bytes / MB).toFixed(1)} MB` : '–');
const kb = (bytes) => (isNum(bytes) ? `${(bytes / KB).toFixed(1)} KB` : '–');

/** A load figure, or VOID / not run when the scenario did not measure anything valid. */
function rate(load) {
  if (!load) return 'not run';
  if (load.void) return 'VOID';
  return fmt(load.rps);
}
function latency(load) {
  if (!load || load.void) return '–';
  return `${fmt(load.latencyMs.p50, 1)} / ${fmt(load.latencyMs.p99, 1)}`;
}
function cpu(load, digits = 2) {
  if (!load || !isNum(load.serverCpuMsPerRequest)) return '–';
  return `${fmt(load.serverCpuMsPerRequest, digits)} / ${fmt(load.serverMainThreadCpuMsPerRequest, digits)}`;
}
const valid = (load) => Boolean(load) && !load.void;
const ratio = (a, b) => (isNum(a) && isNum(b) && b > 0 ? a / b : null);

function verdict(ok, inputsValid) {
  if (!inputsValid) return 'void';
  return ok ? 'pass' : 'fall short';
}

/** Event-loop delay and garbage collection of one Foyer load, from its own metrics. */
function loopRows(load, digits = 2) {
  if (!valid(load) || !load.eventLoopDelayMs) return [];
  const loop = load.eventLoopDelayMs;
  return [
    { figure: '  event-loop delay p99: median chunk / worst chunk (ms)', foyer: `${fmt(loop.p99Median, 1)} / ${fmt(loop.p99Worst, 1)}` },
    {
      figure: '  GC per request (ms) / share of wall time',
      foyer: isNum(load.gcMsPerRequest) ? `${fmt(load.gcMsPerRequest, digits)} / ${fmt(load.gcShareOfWallTime * 100, 1)} %` : '–',
    },
  ];
}

/** A flow's own figures: rate, latency, CPU (its helper's and PostgreSQL's where measured), event loop. */
function flowRows(flow, title) {
  const rows = [
    { figure: title, foyer: rate(flow) },
    { figure: '  latency p50 / p99 (ms)', foyer: latency(flow) },
    { figure: '  server CPU per request: all / main thread (ms)', foyer: cpu(flow, 3) },
  ];
  if (isNum(flow?.helperCpuMsPerRequest)) rows.push({ figure: '  Google provider CPU per request (ms)', foyer: fmt(flow.helperCpuMsPerRequest, 3) });
  if (isNum(flow?.databaseCpuMsPerRequest)) rows.push({ figure: '  PostgreSQL CPU per request (ms)', foyer: fmt(flow.databaseCpuMsPerRequest, 3) });
  rows.push(...loopRows(flow, 3));
  return rows;
}

/** A flow's rate over its floor's (null when either is missing), its row and its budget. */
function floorRatio(value, { ratioTitle, id, suffix }) {
  const ok = isNum(value) && value >= BUDGETS.flowVsCryptoFloor;
  return {
    row: { figure: ratioTitle, foyer: fmt(value, 3), budget: `≥ ${BUDGETS.flowVsCryptoFloor}`, result: verdict(ok, isNum(value)) },
    budget: { id: `${id}${suffix}`, value, budget: `>= ${BUDGETS.flowVsCryptoFloor}`, result: verdict(ok, isNum(value)) },
  };
}

/** What holds Foyer's RSS (run.mjs, memoryHeld). */
function heldRows(when, held) {
  if (!held) return [];
  return [
    {
      figure: `  ${when}: V8 heap used / total, outside the heap (MB)`,
      foyer: `${fmt(held.heapUsedBytes / MB, 1)} / ${fmt(held.heapTotalBytes / MB, 1)}, ${fmt(held.externalBytes / MB, 1)}`,
    },
    ...(when === 'idle'
      ? [
          {
            figure: '  argon2id at most / SQLite page cache at most / web build in memory',
            foyer: `${mb(held.argon2MaxBytes)} / ${mb(held.sqlitePageCacheMaxBytes)} / ${kb(held.webBuildBytes)}`,
          },
        ]
      : []),
  ];
}

/**
 * Resident memory by what its pages are (lib/proc.mjs, residentByMapping), Foyer's and the peer's:
 * the `node` executable's pages, which both hold; anonymous mappings (V8's heap pages, thread
 * stacks, the malloc arenas of other threads); the main malloc heap; shared libraries and addons.
 */
function mappingRows(when, foyer, peer) {
  if (!foyer && !peer) return [];
  const parts = (m) => (m ? `${fmt(m.node / MB, 1)} / ${fmt(m.anonymous / MB, 1)} / ${fmt(m.heap / MB, 1)} / ${fmt(m.libraries / MB, 1)}` : '–');
  return [{ figure: `  ${when}: node binary / anonymous / malloc heap / libraries (MB)`, foyer: parts(foyer), peer: parts(peer) }];
}

/**
 * Rows of the table for one Foyer pass (SQLite, or PostgreSQL with --pg) beside the peer, and
 * the budgets judged on them.
 */
export function loadRows(pass, peer, label) {
  const rows = [];
  const budgets = [];
  const tag = label ? ` [${label}]` : '';
  // Every budget id names its database, so runs with and without --pg compare by id.
  const suffix = `-${label || 'sqlite'}`;
  const raw = pass.rawRate;
  const f = pass.loads ?? {};
  const p = peer?.loads ?? {};

  rows.push({
    figure: `Sign-in, correct password, c=8 (req/s)${tag}`,
    foyer: rate(f.signin),
    peer: rate(p.signin),
    ratio: fmt(valid(f.signin) && valid(p.signin) ? ratio(f.signin.rps, p.signin.rps) : null),
  });
  rows.push({ figure: '  latency p50 / p99 (ms)', foyer: latency(f.signin), peer: latency(p.signin) });
  rows.push({ figure: '  server CPU per request: all / main thread (ms)', foyer: cpu(f.signin), peer: cpu(p.signin) });
  rows.push(...loopRows(f.signin));
  if (isNum(f.signin?.databaseCpuMsPerRequest))
    rows.push({
      figure: '  PostgreSQL CPU per request (ms)',
      foyer: fmt(f.signin.databaseCpuMsPerRequest, 3),
      peer: fmt(p.signin?.databaseCpuMsPerRequest, 3),
    });
  rows.push({
    figure: 'Raw argon2id verify, c=8, 2 cores (verifies/s)',
    foyer: raw ? `${fmt(raw.rate)} (${fmt(Math.min(...raw.chunkRates))}–${fmt(Math.max(...raw.chunkRates))})` : 'not run',
  });
  rows.push({ figure: '  CPU per verify: all / kernel (ms)', foyer: raw ? `${fmt(raw.cpuMsPerVerify)} / ${fmt(raw.kernelMsPerVerify)}` : '–' });

  const floor = pass.floor;
  rows.push({
    figure: 'Floor: node:http + verify only, c=8 (req/s)',
    foyer: valid(floor) ? fmt(floor.rps) : '–',
  });
  rows.push({ figure: '  floor efficiency (floor / raw argon2id)', foyer: valid(floor) && raw ? fmt(floor.rps / raw.rate, 3) : '–' });
  const vsFloor = valid(floor) && valid(f.signin) ? f.signin.rps / floor.rps : null;
  const vsFloorOk = isNum(vsFloor) && vsFloor >= BUDGETS.signinVsFloor;
  rows.push({
    figure: 'Sign-in / floor (Foyer ÷ node:http + verify)',
    foyer: fmt(vsFloor, 3),
    budget: `≥ ${BUDGETS.signinVsFloor}`,
    result: verdict(vsFloorOk, isNum(vsFloor)),
  });
  budgets.push({ id: `signin-vs-floor${suffix}`, value: vsFloor, budget: `>= ${BUDGETS.signinVsFloor}`, result: verdict(vsFloorOk, isNum(vsFloor)) });
  const efficiency = valid(f.signin) && raw ? f.signin.rps / raw.rate : null;
  rows.push({ figure: '  sign-in efficiency (sign-in / raw argon2id)', foyer: fmt(efficiency, 3) });

  const tail = valid(f.signin) ? f.signin.latencyMs.p99 / f.signin.latencyMs.p50 : null;
  const tailOk = isNum(tail) && tail < BUDGETS.signinTail;
  rows.push({
    figure: 'Sign-in p99 / p50 (event loop not blocked)',
    foyer: fmt(tail, 2),
    peer: fmt(valid(p.signin) ? p.signin.latencyMs.p99 / p.signin.latencyMs.p50 : null, 2),
    budget: `< ${BUDGETS.signinTail}`,
    result: verdict(tailOk, isNum(tail)),
  });
  budgets.push({ id: `signin-tail${suffix}`, value: tail, budget: `< ${BUDGETS.signinTail}`, result: verdict(tailOk, isNum(tail)) });

  rows.push({
    figure: `Failed sign-in, unknown emails, c=8 (req/s)${tag}`,
    foyer: rate(f.signinFailed),
    peer: rate(p.signinFailed),
    ratio: fmt(valid(f.signinFailed) && valid(p.signinFailed) ? ratio(f.signinFailed.rps, p.signinFailed.rps) : null),
  });
  rows.push({ figure: '  latency p50 / p99 (ms)', foyer: latency(f.signinFailed), peer: latency(p.signinFailed) });
  const failedCost = valid(f.signin) && valid(f.signinFailed) ? f.signinFailed.rps / f.signin.rps : null;
  const peerFailedCost = valid(p.signin) && valid(p.signinFailed) ? p.signinFailed.rps / p.signin.rps : null;
  const costOk = isNum(failedCost) && failedCost >= BUDGETS.failedCost[0] && failedCost <= BUDGETS.failedCost[1];
  rows.push({ figure: '  server CPU per request: all / main thread (ms)', foyer: cpu(f.signinFailed), peer: cpu(p.signinFailed) });
  rows.push(...loopRows(f.signinFailed));
  rows.push({
    figure: '  failed / correct sign-in rate (same cost)',
    foyer: fmt(failedCost, 2),
    peer: fmt(peerFailedCost, 2),
    budget: `${BUDGETS.failedCost[0]}–${BUDGETS.failedCost[1]}`,
    result: verdict(costOk, isNum(failedCost)),
  });
  budgets.push({
    id: `failed-signin-cost${suffix}`,
    value: failedCost,
    budget: `${BUDGETS.failedCost[0]}..${BUDGETS.failedCost[1]}`,
    result: verdict(costOk, isNum(failedCost)),
  });

  const sessionRatio = valid(f.session) && valid(p.session) ? f.session.rps / p.session.rps : null;
  const sessionOk = isNum(sessionRatio) && sessionRatio >= BUDGETS.sessionVsPeer;
  rows.push({
    figure: `Session check, c=32 (req/s)${tag}`,
    foyer: rate(f.session),
    peer: rate(p.session),
    ratio: fmt(sessionRatio, 2),
    budget: `Foyer/peer ≥ ${BUDGETS.sessionVsPeer}`,
    result: verdict(sessionOk, isNum(sessionRatio)),
  });
  rows.push({ figure: '  latency p50 / p99 (ms)', foyer: latency(f.session), peer: latency(p.session) });
  rows.push({ figure: '  server CPU per request: all / main thread (ms)', foyer: cpu(f.session, 3), peer: cpu(p.session, 3) });
  rows.push(...loopRows(f.session, 4));
  const cheapFloor = pass.sessionFloor;
  rows.push({ figure: "Floor: node:http + Foyer's fixed answer, c=32 (req/s)", foyer: valid(cheapFloor) ? fmt(cheapFloor.rps) : '–' });
  rows.push({ figure: '  server CPU per request (ms)', foyer: valid(cheapFloor) ? fmt(cheapFloor.serverCpuMsPerRequest, 3) : '–' });
  const sessionVsFloor = valid(cheapFloor) && valid(f.session) ? f.session.rps / cheapFloor.rps : null;
  const sessionFloorOk = isNum(sessionVsFloor) && sessionVsFloor >= BUDGETS.sessionVsFloor;
  rows.push({
    figure: 'Session check / floor (Foyer ÷ fixed answer)',
    foyer: fmt(sessionVsFloor, 3),
    budget: `≥ ${BUDGETS.sessionVsFloor}`,
    result: verdict(sessionFloorOk, isNum(sessionVsFloor)),
  });
  budgets.push({
    id: `session-vs-floor${suffix}`,
    value: sessionVsFloor,
    budget: `>= ${BUDGETS.sessionVsFloor}`,
    result: verdict(sessionFloorOk, isNum(sessionVsFloor)),
  });
  if (isNum(f.session?.databaseCpuMsPerRequest))
    rows.push({
      figure: '  PostgreSQL CPU per request (ms)',
      foyer: fmt(f.session.databaseCpuMsPerRequest, 3),
      peer: fmt(p.session?.databaseCpuMsPerRequest, 3),
    });
  budgets.push({
    id: `session-vs-peer${suffix}`,
    value: sessionRatio,
    budget: `>= ${BUDGETS.sessionVsPeer}`,
    result: verdict(sessionOk, isNum(sessionRatio)),
  });

  // The forum and Google flows against floor servers loaded like them (their requests per
  // second); the SAML consumer against its signature check in a loop (lib/raw-worker.mjs).
  const rpsRatio = (flow, floor) => (valid(floor) && valid(flow) ? flow.rps / floor.rps : null);
  // A floor server's own rows: its requests per second and its CPU per request.
  const floorServerRows = (figure, floor) => [
    { figure, foyer: valid(floor) ? fmt(floor.rps) : '–' },
    { figure: '  server CPU per request (ms)', foyer: valid(floor) ? fmt(floor.serverCpuMsPerRequest, 3) : '–' },
  ];
  const floorFlows = [
    {
      flow: f.forum,
      floor: pass.forumFloor,
      title: 'DiscourseConnect round trip, c=8 (req/s)',
      floorRows: (floor) => floorServerRows('Floor: node:http + its HMAC and base64 only, c=8 (req/s)', floor),
      ratio: rpsRatio,
      ratioTitle: 'DiscourseConnect / its crypto floor',
      id: 'forum-vs-crypto-floor',
    },
    {
      // Judged against a bare server that redeems the code at the same provider and validates
      // the ID token; the validation loop alone stays for context (the callback's own crypto).
      flow: f.google,
      floor: pass.googleFloor,
      title: 'Google callback, c=8 (req/s)',
      floorRows: (floor) => [
        ...floorServerRows('Floor: node:http + code exchange + ID-token validation only, c=8 (req/s)', floor),
        ...(isNum(floor?.helperCpuMsPerRequest) ? [{ figure: '  Google provider CPU per request (ms)', foyer: fmt(floor.helperCpuMsPerRequest, 3) }] : []),
        { figure: 'Context: RS256 ID-token validation alone, c=8 (per s)', foyer: pass.googleValidation ? fmt(pass.googleValidation.rate) : '–' },
        { figure: '  CPU per validation (ms)', foyer: pass.googleValidation ? fmt(pass.googleValidation.cpuMsPerVerify, 3) : '–' },
      ],
      ratio: rpsRatio,
      ratioTitle: 'Google callback / its floor',
      id: 'google-callback-vs-floor',
    },
    {
      flow: f.saml,
      floor: pass.samlFloor,
      title: 'SAML assertion consumer, c=8 (req/s)',
      floorRows: (floor) => [
        { figure: 'Floor: XML-signature check only, one thread per core (per s)', foyer: floor ? fmt(floor.rate) : '–' },
        { figure: '  CPU per operation (ms)', foyer: floor ? fmt(floor.cpuMsPerVerify, 3) : '–' },
      ],
      ratio: (flow, floor) => (floor && valid(flow) ? flow.rps / floor.rate : null),
      ratioTitle: 'SAML consumer / its crypto floor',
      id: 'saml-acs-floor',
    },
  ];
  for (const measured of floorFlows) {
    if (!measured.flow && !measured.floor) continue;
    const judged = floorRatio(measured.ratio(measured.flow, measured.floor), { ...measured, suffix });
    rows.push(...flowRows(measured.flow, `${measured.title}${tag}`), ...measured.floorRows(measured.floor), judged.row);
    budgets.push(judged.budget);
  }

  const m = pass.memory ?? {};
  const pm = peer?.memory ?? {};
  rows.push({ figure: 'Server RSS idle', foyer: mb(m.idle), peer: mb(pm.idle) });
  rows.push({ figure: 'Server RSS peak under load', foyer: mb(m.peak), peer: mb(pm.peak) });
  const rssOk = isNum(m.settled) && m.settled <= BUDGETS.settledRssBytes;
  rows.push({
    figure: `Server RSS settled, ${pass.settleSeconds ?? '?'} s after load`,
    foyer: mb(m.settled),
    peer: mb(pm.settled),
    ratio: fmt(isNum(m.settled) && isNum(pm.settled) ? m.settled / pm.settled : null, 2),
    budget: `≤ ${BUDGETS.settledRssBytes / MB} MB`,
    result: verdict(rssOk, isNum(m.settled)),
  });
  budgets.push({
    id: `rss-settled${suffix}`,
    value: m.settled ?? null,
    budget: `<= ${BUDGETS.settledRssBytes}`,
    result: verdict(rssOk, isNum(m.settled)),
  });
  const settledRatio = isNum(m.settled) && isNum(pm.settled) ? m.settled / pm.settled : null;
  const settledOk = isNum(settledRatio) && settledRatio <= BUDGETS.settledVsPeer;
  rows.push({
    figure: '  settled RSS, Foyer / peer',
    foyer: fmt(settledRatio, 2),
    budget: `≤ ${BUDGETS.settledVsPeer}`,
    result: verdict(settledOk, isNum(settledRatio)),
  });
  budgets.push({
    id: `rss-settled-vs-peer${suffix}`,
    value: settledRatio,
    budget: `<= ${BUDGETS.settledVsPeer}`,
    result: verdict(settledOk, isNum(settledRatio)),
  });
  rows.push(...heldRows('idle', m.idleHeld), ...heldRows('settled', m.settledHeld));
  rows.push(...mappingRows('idle', m.idleByMapping, pm.idleByMapping), ...mappingRows('settled', m.settledByMapping, pm.settledByMapping));
  return { rows, budgets };
}

export function webRows(web, lighthouse) {
  const rows = [];
  const budgets = [];
  for (const [route, r] of Object.entries(web ?? {})) {
    const isSignIn = route === '/sign-in';
    const measured = r.status === 200 && (r.problems ?? []).length === 0;
    const jsOk = r.jsGzipBytes <= BUDGETS.signInJsBytes;
    rows.push({
      figure: `First load ${route}: gzip JS / CSS${r.status === 200 ? '' : ` (HTTP ${r.status})`}${r.leftFor ? ` (then off to ${new URL(r.leftFor).host})` : ''}`,
      foyer: measured ? `${kb(r.jsGzipBytes)} / ${kb(r.cssGzipBytes)}` : 'VOID',
      ...(isSignIn ? { budget: `JS ≤ ${BUDGETS.signInJsBytes / KB} KB`, result: verdict(jsOk, measured) } : {}),
    });
    rows.push({
      figure: `  password-strength dictionaries fetched`,
      foyer: measured ? (r.dictionaries ? 'yes' : 'no') : '–',
      ...(isSignIn ? { budget: 'none', result: verdict(!r.dictionaries, measured) } : {}),
    });
    if (isSignIn) {
      budgets.push({ id: 'sign-in-js', value: r.jsGzipBytes, budget: `<= ${BUDGETS.signInJsBytes}`, result: verdict(jsOk, measured) });
      budgets.push({ id: 'sign-in-no-dictionaries', value: r.dictionaries, budget: 'false', result: verdict(!r.dictionaries, measured) });
    }
  }
  if (web && !web['/sign-in']) budgets.push({ id: 'sign-in-js', value: null, budget: `<= ${BUDGETS.signInJsBytes}`, result: 'void' });
  if (lighthouse) {
    const perfOk = isNum(lighthouse.performance) && lighthouse.performance >= BUDGETS.lighthousePerformance;
    const a11yOk = isNum(lighthouse.accessibility) && lighthouse.accessibility >= BUDGETS.lighthouseAccessibility;
    rows.push({
      figure: 'Lighthouse /sign-in (mobile): performance',
      foyer: fmt(lighthouse.performance, 0),
      budget: `≥ ${BUDGETS.lighthousePerformance}`,
      result: verdict(perfOk, isNum(lighthouse.performance)),
    });
    rows.push({
      figure: '  accessibility',
      foyer: fmt(lighthouse.accessibility, 0),
      budget: `= ${BUDGETS.lighthouseAccessibility}`,
      result: verdict(a11yOk, isNum(lighthouse.accessibility)),
    });
    rows.push({ figure: '  LCP (ms, simulated slow 4G)', foyer: fmt(lighthouse.lcpMs, 0) });
    budgets.push({
      id: 'lighthouse-performance',
      value: lighthouse.performance,
      budget: `>= ${BUDGETS.lighthousePerformance}`,
      result: verdict(perfOk, isNum(lighthouse.performance)),
    });
    budgets.push({
      id: 'lighthouse-accessibility',
      value: lighthouse.accessibility,
      budget: `>= ${BUDGETS.lighthouseAccessibility}`,
      result: verdict(a11yOk, isNum(lighthouse.accessibility)),
    });
  }
  return { rows, budgets };
}

const COLUMNS = [
  ['figure', 'Figure'],
  ['foyer', 'Foyer'],
  ['peer', 'Better Auth'],
  ['ratio', 'Foyer/peer'],
  ['budget', 'Budget'],
  ['result', 'Result'],
];

/** A plain-text table (also valid Markdown when `markdown` is set). */
export function renderTable(rows, { markdown = false } = {}) {
  const cells = rows.map((row) => COLUMNS.map(([key]) => String(row[key] ?? '')));
  const header = COLUMNS.map(([, title]) => title);
  if (markdown) {
    const line = (values) => `| ${values.map((v) => v.replace(/\|/g, '\\|')).join(' | ')} |`;
    return [line(header), line(header.map(() => '---')), ...cells.map((values) => line(values.map((v) => v.replace(/^ +/, '  ↳ '))))].join('\n');
  }
  const widths = header.map((title, i) => Math.max(title.length, ...cells.map((row) => row[i].length)));
  const line = (values) =>
    values
      .map((v, i) => v.padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.map(line)].join('\n');
}
