// Load with autocannon. A scenario runs as one or more chunks (the harness interleaves the chunks
// of sign-in, failed sign-in and the raw argon2id rate, so a drifting machine drifts for all of
// them alike); `summarize` merges the chunks into one figure.
// Every response is checked: a run with any unexpected answer (wrong status or body, a socket
// error, a timeout) is void, because a benchmark of 429s or 500s measures nothing.
import { readdirSync, readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import { machineBusyMs } from './machine.mjs';
import { delayBeyondSample } from './metrics.mjs';

const TICK_MS = 10; // USER_HZ is 100 on Linux: /proc times are in 10 ms ticks

function statTimes(path) {
  const stat = readFileSync(path, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // Fields 14 and 15 of proc(5) stat: utime and stime; the slice starts at field 3.
  return { user: Number(fields[11]) * TICK_MS, system: Number(fields[12]) * TICK_MS };
}

/**
 * CPU time a process has used so far, in ms: all its threads, and its main thread alone (the
 * event loop: JavaScript and synchronous native calls such as better-sqlite3's). The difference is
 * other threads (argon2id's, SAML's, libuv's pool), GC helpers and the like. Null once the process is gone.
 */
export function cpuMs(pid) {
  try {
    const all = statTimes(`/proc/${pid}/stat`);
    const main = statTimes(`/proc/${pid}/task/${pid}/stat`);
    return { total: all.user + all.system, system: all.system, main: main.user + main.system };
  } catch {
    return null;
  }
}

/** CPU time so far of every process with this command name (e.g. `postgres`), by pid, in ms. */
export function cpuByName(name) {
  const out = new Map();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() !== name) continue;
      const { user, system } = statTimes(`/proc/${entry}/stat`);
      out.set(entry, user + system);
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/** CPU time so far of these processes together, in ms. */
function helperCpu(pids) {
  return pids.reduce((total, pid) => total + (cpuMs(pid)?.total ?? 0), 0);
}

function cpuDelta(before, after) {
  let total = 0;
  for (const [pid, value] of after) total += value - (before.get(pid) ?? 0);
  return total;
}

const devNull = { write() {}, isTTY: false, columns: 80 };

function autocannonRun(options) {
  return new Promise((resolve, reject) => {
    const statuses = {};
    const latencies = [];
    let unexpected = 0;
    let firstUnexpected = null;
    const { expect, body, bodies, ...rest } = options;
    const onResponse = (status, responseBody, context, headers) => {
      statuses[status] = (statuses[status] ?? 0) + 1;
      if (!expect(status, responseBody, headers)) {
        unexpected += 1;
        if (firstUnexpected === null) firstUnexpected = `${status} ${String(responseBody).slice(0, 200)}`;
      }
    };
    let requests;
    if (bodies) {
      // Fixed bodies taken in turn: autocannon builds each request once.
      requests = bodies.map((text) => ({ body: text, onResponse }));
    } else if (typeof body === 'function') {
      // A new body for every request (rotating emails, for example).
      requests = [{ onResponse, setupRequest: (req) => ({ ...req, body: body() }) }];
    } else {
      requests = [{ onResponse, ...(body === undefined ? {} : { body }) }];
    }
    const instance = autocannon({ ...rest, requests }, (error, result) => {
      if (error) reject(error);
      else resolve({ result, statuses, unexpected, firstUnexpected, latencies });
    });
    instance.on('response', (client, statusCode, resBytes, responseTime) => latencies.push(responseTime));
    // Autocannon would otherwise print its own progress bar and table.
    autocannon.track(instance, { renderProgressBar: false, renderResultsTable: false, renderLatencyTable: false, outputStream: devNull });
  });
}

/**
 * One chunk of load: `seconds` of it, after `warmup` seconds whose figures are dropped.
 * @param {object} scenario
 * @param {string} scenario.url
 * @param {'GET'|'POST'} [scenario.method]
 * @param {Record<string,string>} [scenario.headers]
 * @param {string|(() => string)} [scenario.body] one body, or a function making each request's
 * @param {string[]} [scenario.bodies] fixed bodies sent in turn
 * @param {(status:number, body:string, headers:Record<string,string>) => boolean} scenario.expect
 * @param {{ connections: number, seconds: number, warmup?: number, pid?: number, database?: string, helperPids?: number[], metrics?: () => Promise<object> }} run
 *   `database`: the command name of a database server on this machine (`postgres`) whose CPU is
 *   part of the system under test: reported per request, and not counted as other work.
 *   `helperPids`: other processes the requests need (the Google provider): the same.
 *   `metrics`: scrapes the server's own metrics (lib/metrics.mjs); read just before and just after
 *   the chunk, outside its CPU window, for the chunk's event-loop delay and GC time.
 */
export async function loadChunk(scenario, { connections, seconds, warmup = 0, pid, database, helperPids = [], metrics }) {
  const base = { ...scenario, connections, timeout: 10, pipelining: 1 };
  if (warmup > 0) await autocannonRun({ ...base, duration: warmup });
  const metricsBefore = metrics ? await metrics() : null;
  const serverBefore = pid ? cpuMs(pid) : null;
  const ownBefore = process.cpuUsage();
  const databaseBefore = database ? cpuByName(database) : null;
  const helpersBefore = helperCpu(helperPids);
  const machineBefore = machineBusyMs();
  const run = await autocannonRun({ ...base, duration: seconds });
  const machineAfter = machineBusyMs();
  const databaseCpu = database ? cpuDelta(databaseBefore, cpuByName(database)) : 0;
  const helpersCpu = helperCpu(helperPids) - helpersBefore;
  const serverAfter = pid ? cpuMs(pid) : null;
  const own = process.cpuUsage(ownBefore);
  const metricsAfter = metrics ? await metrics() : null;
  const server =
    serverBefore && serverAfter ? Object.fromEntries(Object.keys(serverAfter).map((key) => [key, serverAfter[key] - serverBefore[key]])) : null;
  return {
    seconds: run.result.duration,
    statuses: run.statuses,
    latencies: run.latencies,
    unexpected: run.unexpected,
    firstUnexpected: run.firstUnexpected,
    errors: run.result.errors,
    timeouts: run.result.timeouts,
    serverCpu: server,
    eventLoop: metricsAfter?.eventLoop ?? null,
    gcMs: metricsAfter && metricsBefore ? metricsAfter.gcMs - metricsBefore.gcMs : null,
    ownCpuMs: (own.user + own.system) / 1000,
    // Whatever else kept the cores busy meanwhile (other processes), in cores.
    databaseCpuMs: database ? databaseCpu : null,
    helperCpuMs: helperPids.length ? helpersCpu : null,
    otherCores:
      server && machineBefore !== null
        ? Math.max(
            0,
            (machineAfter - machineBefore - server.total - databaseCpu - helpersCpu - (own.user + own.system) / 1000) / 1000 / run.result.duration,
          )
        : null,
  };
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

function percentile(sorted, p) {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/** Merges the chunks of one scenario into its figures. */
export function summarize(chunks, connections) {
  const statuses = {};
  for (const chunk of chunks) for (const [status, count] of Object.entries(chunk.statuses)) statuses[status] = (statuses[status] ?? 0) + count;
  const responses = Object.values(statuses).reduce((a, b) => a + b, 0);
  const seconds = chunks.reduce((total, chunk) => total + chunk.seconds, 0);
  const unexpected = chunks.reduce((total, chunk) => total + chunk.unexpected, 0);
  const errors = chunks.reduce((total, chunk) => total + chunk.errors, 0);
  const timeouts = chunks.reduce((total, chunk) => total + chunk.timeouts, 0);
  const latencies = chunks.flatMap((chunk) => chunk.latencies).sort((a, b) => a - b);
  const round = (value) => (value === null ? null : Math.round(value * 100) / 100);
  const serverCpu = chunks.every((chunk) => chunk.serverCpu)
    ? chunks.reduce(
        (sum, chunk) => ({ total: sum.total + chunk.serverCpu.total, system: sum.system + chunk.serverCpu.system, main: sum.main + chunk.serverCpu.main }),
        { total: 0, system: 0, main: 0 },
      )
    : null;
  const ownCpuMs = chunks.reduce((total, chunk) => total + chunk.ownCpuMs, 0);
  const databaseCpuMs = chunks.every((chunk) => typeof chunk.databaseCpuMs === 'number')
    ? chunks.reduce((total, chunk) => total + chunk.databaseCpuMs, 0)
    : null;
  const helperCpuMs = chunks.every((chunk) => typeof chunk.helperCpuMs === 'number')
    ? chunks.reduce((total, chunk) => total + chunk.helperCpuMs, 0)
    : null;
  // Event-loop delay: each chunk's p99 from the server's own histogram (lib/metrics.mjs), less the
  // sampling period; the median chunk and the worst.
  const loopP99 = chunks.map((chunk) => delayBeyondSample(chunk.eventLoop?.p99Ms)).filter((value) => value !== null);
  const loopMax = chunks.map((chunk) => delayBeyondSample(chunk.eventLoop?.maxMs)).filter((value) => value !== null);
  const gcMs = chunks.every((chunk) => typeof chunk.gcMs === 'number') ? chunks.reduce((total, chunk) => total + chunk.gcMs, 0) : null;
  return {
    connections,
    chunks: chunks.length,
    seconds,
    requests: responses,
    rps: seconds > 0 ? responses / seconds : 0,
    chunkRps: chunks.map((chunk) => Math.round((Object.values(chunk.statuses).reduce((a, b) => a + b, 0) / chunk.seconds) * 10) / 10),
    latencyMs: {
      p50: round(percentile(latencies, 50)),
      p90: round(percentile(latencies, 90)),
      p99: round(percentile(latencies, 99)),
      max: round(latencies.at(-1) ?? null),
      mean: round(latencies.length ? latencies.reduce((a, b) => a + b, 0) / latencies.length : null),
    },
    // CPU per answered request: the server's (all threads; main thread; kernel) and the load generator's.
    serverCpuMsPerRequest: serverCpu && responses ? serverCpu.total / responses : null,
    serverMainThreadCpuMsPerRequest: serverCpu && responses ? serverCpu.main / responses : null,
    serverKernelCpuMsPerRequest: serverCpu && responses ? serverCpu.system / responses : null,
    serverCpuCores: serverCpu && seconds ? serverCpu.total / 1000 / seconds : null,
    databaseCpuMsPerRequest: databaseCpuMs !== null && responses ? databaseCpuMs / responses : null,
    helperCpuMsPerRequest: helperCpuMs !== null && responses ? helperCpuMs / responses : null,
    loadGeneratorCpuMsPerRequest: responses ? ownCpuMs / responses : null,
    eventLoopDelayMs: loopP99.length
      ? { p99Median: round(median(loopP99)), p99Worst: round(Math.max(...loopP99)), maxWorst: round(Math.max(...loopMax)) }
      : null,
    gcMsPerRequest: gcMs !== null && responses ? gcMs / responses : null,
    gcShareOfWallTime: gcMs !== null && seconds ? gcMs / 1000 / seconds : null,
    statuses,
    unexpected,
    errors,
    timeouts,
    firstUnexpected: chunks.find((chunk) => chunk.firstUnexpected)?.firstUnexpected ?? null,
    otherCoresMax: chunks.some((chunk) => chunk.otherCores !== null)
      ? Math.round(Math.max(...chunks.map((chunk) => chunk.otherCores ?? 0)) * 100) / 100
      : null,
    void: unexpected + errors + timeouts > 0 || responses === 0,
  };
}

/**
 * Waits until a server has finished what the last chunk left in flight (its CPU use drops below
 * one 10 ms tick over 100 ms), at most `maxMs`, so no chunk pays for the one before.
 */
export async function drain(pids, maxMs = 3000) {
  const deadline = Date.now() + maxMs;
  let last = pids.map((pid) => cpuMs(pid)?.total ?? 0);
  while (Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    const now = pids.map((pid) => cpuMs(pid)?.total ?? 0);
    const busy = now.some((value, i) => value - last[i] > 10);
    last = now;
    if (!busy) return;
  }
}
