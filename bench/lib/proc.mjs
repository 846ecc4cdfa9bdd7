// Child processes of the benchmark: start, wait until they answer, sample their memory, stop.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** A free TCP port on the loopback interface. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Resident set size of a process in bytes (VmRSS of /proc/<pid>/status), or null once it is gone. */
export function rssBytes(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
    return match ? Number(match[1]) * 1024 : null;
  } catch {
    return null;
  }
}

/** Samples a process's RSS every `intervalMs` and keeps the highest value seen. */
export class RssSampler {
  constructor(pid, intervalMs = 100) {
    this.pid = pid;
    this.intervalMs = intervalMs;
    this.peak = 0;
    this.timer = null;
  }
  start() {
    this.sample();
    this.timer = setInterval(() => this.sample(), this.intervalMs);
    this.timer.unref();
    return this;
  }
  sample() {
    const rss = rssBytes(this.pid);
    if (rss !== null && rss > this.peak) this.peak = rss;
    return rss;
  }
  stop() {
    clearInterval(this.timer);
    this.sample();
    return this.peak;
  }
}

/**
 * Starts a long-running child (a server). Its output is kept in memory (last 200 lines) so a
 * failure can show it; `onLine` sees each stdout line.
 */
export function startChild(command, args, { env, cwd, onLine } = {}) {
  const child = spawn(command, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines = [];
  const keep = (stream, tag) => {
    let buffer = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk) => {
      buffer += chunk;
      let index;
      while ((index = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, index);
        buffer = buffer.slice(index + 1);
        lines.push(`${tag} ${line}`);
        if (lines.length > 200) lines.shift();
        if (tag === 'out' && onLine) onLine(line);
      }
    });
  };
  keep(child.stdout, 'out');
  keep(child.stderr, 'err');
  child.exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  child.output = () => lines.join('\n');
  return child;
}

/** Stops a child we started: SIGTERM, then SIGKILL after `graceMs`. */
export async function stopChild(child, graceMs = 5000) {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await child.exited;
  clearTimeout(timer);
}

/** Polls `url` until it answers with `status` (default 200), or fails after `timeoutMs`. */
export async function waitForHttp(url, { child, timeoutMs = 30_000, status = 200 } = {}) {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer';
  while (Date.now() < deadline) {
    if (child && (child.exitCode !== null || child.signalCode !== null)) {
      throw new Error(`the process exited (${child.exitCode ?? child.signalCode}) before ${url} answered:\n${child.output()}`);
    }
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
      await response.arrayBuffer();
      if (response.status === status) return;
      last = `HTTP ${response.status}`;
    } catch (error) {
      last = error.cause?.code ?? error.message;
    }
    await sleep(200);
  }
  throw new Error(`${url} did not answer ${status} within ${timeoutMs} ms (last: ${last})${child ? `:\n${child.output()}` : ''}`);
}

/** Runs a command to completion; rejects with its output when it exits non-zero. */
export function run(command, args, { env, cwd, quiet = true } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (chunk) => {
      out += chunk;
      if (!quiet) process.stderr.write(chunk);
    });
    child.stderr.on('data', (chunk) => {
      err += chunk;
      if (!quiet) process.stderr.write(chunk);
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (code === 0) resolve({ stdout: out, stderr: err });
      else reject(new Error(`${command} ${args.join(' ')} exited with ${code ?? signal}\n${out}\n${err}`.trim()));
    });
  });
}

/**
 * Resident memory of a process by what its pages are (`/proc/<pid>/smaps`), in bytes: `heap`
 * (the main malloc arena), `anonymous` (unnamed mappings: V8's heap, thread stacks and the
 * other malloc arenas, native allocations mapped on their own), `node` (the executable's own
 * pages), `libraries` (shared objects), `files` (other mapped files), `other` ([stack], [vdso]
 * and the like). Null once the process is gone.
 */
export function residentByMapping(pid) {
  let text;
  try {
    text = readFileSync(`/proc/${pid}/smaps`, 'utf8');
  } catch {
    return null;
  }
  const kinds = { heap: 0, anonymous: 0, node: 0, libraries: 0, files: 0, other: 0 };
  let kind = 'other';
  for (const line of text.split('\n')) {
    const header = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (header) {
      const name = header[1];
      if (name === '') kind = 'anonymous';
      else if (name === '[heap]') kind = 'heap';
      else if (name.startsWith('[')) kind = 'other';
      else if (/\/node$/.test(name)) kind = 'node';
      else if (/\.so(\.|$)/.test(name) || /\.node$/.test(name)) kind = 'libraries';
      else kind = 'files';
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss) kinds[kind] += Number(rss[1]) * 1024;
  }
  return kinds;
}
