// The judged figures (ratios taken in the same run), the budgets, and the printed table.

export const KB = 1000;
export const MB = 1000 * 1000;

export const BUDGETS = {
  signinEfficiency: 0.95,
  signinTail: 2.5,
  failedCost: [0.9, 1.1],
  sessionVsPeer: 10,
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

/**
 * Rows of the table for one Foyer pass (SQLite, or PostgreSQL with --pg) beside the peer, and
 * the budgets judged on them.
 */
export function loadRows(pass, peer, label) {
  const rows = [];
  const budgets = [];
  const tag = label ? ` [${label}]` : '';
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
  rows.push({ figure: '  Foyer sign-in / floor', foyer: valid(floor) && valid(f.signin) ? fmt(f.signin.rps / floor.rps, 3) : '–' });
  const efficiency = valid(f.signin) && raw ? f.signin.rps / raw.rate : null;
  const effOk = isNum(efficiency) && efficiency >= BUDGETS.signinEfficiency;
  rows.push({
    figure: 'Sign-in efficiency (sign-in / raw argon2id)',
    foyer: fmt(efficiency, 3),
    budget: `≥ ${BUDGETS.signinEfficiency}`,
    result: verdict(effOk, isNum(efficiency)),
  });
  budgets.push({
    id: `signin-efficiency${label ? `-${label}` : ''}`,
    value: efficiency,
    budget: `>= ${BUDGETS.signinEfficiency}`,
    result: verdict(effOk, isNum(efficiency)),
  });

  const tail = valid(f.signin) ? f.signin.latencyMs.p99 / f.signin.latencyMs.p50 : null;
  const tailOk = isNum(tail) && tail < BUDGETS.signinTail;
  rows.push({
    figure: 'Sign-in p99 / p50 (event loop not blocked)',
    foyer: fmt(tail, 2),
    peer: fmt(valid(p.signin) ? p.signin.latencyMs.p99 / p.signin.latencyMs.p50 : null, 2),
    budget: `< ${BUDGETS.signinTail}`,
    result: verdict(tailOk, isNum(tail)),
  });
  budgets.push({ id: `signin-tail${label ? `-${label}` : ''}`, value: tail, budget: `< ${BUDGETS.signinTail}`, result: verdict(tailOk, isNum(tail)) });

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
  rows.push({
    figure: '  failed / correct sign-in rate (same cost)',
    foyer: fmt(failedCost, 2),
    peer: fmt(peerFailedCost, 2),
    budget: `${BUDGETS.failedCost[0]}–${BUDGETS.failedCost[1]}`,
    result: verdict(costOk, isNum(failedCost)),
  });
  budgets.push({
    id: `failed-signin-cost${label ? `-${label}` : ''}`,
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
  if (isNum(f.session?.databaseCpuMsPerRequest))
    rows.push({
      figure: '  PostgreSQL CPU per request (ms)',
      foyer: fmt(f.session.databaseCpuMsPerRequest, 3),
      peer: fmt(p.session?.databaseCpuMsPerRequest, 3),
    });
  budgets.push({
    id: `session-vs-peer${label ? `-${label}` : ''}`,
    value: sessionRatio,
    budget: `>= ${BUDGETS.sessionVsPeer}`,
    result: verdict(sessionOk, isNum(sessionRatio)),
  });

  const m = pass.memory ?? {};
  const pm = peer?.memory ?? {};
  rows.push({ figure: 'Server RSS idle', foyer: mb(m.idle), peer: mb(pm.idle) });
  rows.push({ figure: 'Server RSS peak under load', foyer: mb(m.peak), peer: mb(pm.peak) });
  const rssOk = isNum(m.settled) && m.settled <= BUDGETS.settledRssBytes;
  rows.push({
    figure: `Server RSS settled, ${pass.settleSeconds ?? '?'} s after load`,
    foyer: mb(m.settled),
    peer: mb(pm.settled),
    budget: `≤ ${BUDGETS.settledRssBytes / MB} MB`,
    result: verdict(rssOk, isNum(m.settled)),
  });
  budgets.push({
    id: `rss-settled${label ? `-${label}` : ''}`,
    value: m.settled ?? null,
    budget: `<= ${BUDGETS.settledRssBytes}`,
    result: verdict(rssOk, isNum(m.settled)),
  });
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
