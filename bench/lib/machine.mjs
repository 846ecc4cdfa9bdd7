// Facts about the machine a run was taken on, and how busy it was with other work.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { sleep } from './proc.mjs';

function tryText(read) {
  try {
    return read().trim();
  } catch {
    return null;
  }
}

export function machineInfo({ chromiumPath }) {
  const cpus = os.cpus();
  const cpuinfo = tryText(() => readFileSync('/proc/cpuinfo', 'utf8')) ?? '';
  const model = /^model name\s*:\s*(.+)$/m.exec(cpuinfo)?.[1] ?? cpus[0]?.model ?? 'unknown';
  return {
    cores: os.availableParallelism?.() ?? cpus.length,
    cpuModel: model,
    cpuMHz: cpus[0]?.speed ?? null,
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    v8: process.versions.v8,
    uvThreadpoolSize: Number(process.env.UV_THREADPOOL_SIZE ?? 4),
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    chromium: tryText(() => execFileSync(chromiumPath, ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })),
    commit: tryText(() => execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })),
  };
}

function cpuTimes() {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0];
  // user nice system idle iowait irq softirq steal (guest time is already in user and nice)
  const values = line.trim().split(/\s+/).slice(1, 9).map(Number);
  const idle = values[3] + (values[4] ?? 0);
  const total = values.reduce((a, b) => a + b, 0);
  return { idle, total };
}

/** CPU time (ms) used so far by these processes and by this one. */
function ownCpuMs(pids) {
  let total = (process.cpuUsage().user + process.cpuUsage().system) / 1000;
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      total += (Number(fields[11]) + Number(fields[12])) * 10;
    } catch {
      // gone
    }
  }
  return total;
}

/**
 * How busy the machine is with other work, in cores, over `ms` while the harness waits: the
 * harness itself and the processes in `pids` (its servers) do not count. A run taken beside
 * someone else's test suite says so in its report.
 */
export async function backgroundLoad(ms = 500, pids = []) {
  try {
    const before = cpuTimes();
    const oursBefore = ownCpuMs(pids);
    await sleep(ms);
    const after = cpuTimes();
    const ours = ownCpuMs(pids) - oursBefore;
    const total = after.total - before.total;
    if (total <= 0) return 0;
    const busyMs = (total - (after.idle - before.idle)) * 10;
    return Math.max(0, (busyMs - ours) / ms);
  } catch {
    return null;
  }
}

/**
 * Waits (up to `maxMs`) until other work on the machine uses less than `threshold` cores, so a
 * load does not start beside someone else's test suite; returns the last reading either way.
 */
export async function waitForQuiet({ threshold = 0.3, maxMs = 30_000, onWait, pids = [] } = {}) {
  const deadline = Date.now() + maxMs;
  let load = await backgroundLoad(500, pids);
  let waited = false;
  while (load !== null && load >= threshold && Date.now() < deadline) {
    if (!waited && onWait) onWait(load);
    waited = true;
    load = await backgroundLoad(1000, pids);
  }
  return load;
}

/** CPU time the whole machine has spent busy so far (all cores), in ms. */
export function machineBusyMs() {
  try {
    const { idle, total } = cpuTimes();
    return (total - idle) * 10; // USER_HZ = 100
  } catch {
    return null;
  }
}
