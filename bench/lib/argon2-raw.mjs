// The physical limit of a password sign-in on this machine: how many argon2id verifications per
// second @node-rs/argon2 does with the server's parameters, `concurrency` of them in flight on the
// default libuv thread pool (as in the server), so both cores are busy.
//
// It runs in its own process (nothing else shares its event loop or thread pool), which stays up
// so the harness can take it in chunks between the chunks of the sign-in load:
//   const raw = startRawWorker(); await raw.measure(2, 8); ...; raw.stop();
// As a script, one measurement: node bench/lib/argon2-raw.mjs [seconds=10] [concurrency=8]
import { fork } from 'node:child_process';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';

// Foyer's parameters (packages/server/src/config.ts: OWASP m=19 MiB, t=2, p=1; argon2id).
export const ARGON2_PARAMS = { algorithm: 2, memoryCost: 19456, timeCost: 2, parallelism: 1 };

let prepared;
async function prepare() {
  if (!prepared) {
    prepared = (async () => {
      const { hash, verify } = await import('@node-rs/argon2');
      // The server hashes the browser's SHA-256 hex of the password (spec §5).
      const input = createHash('sha256').update('bench password 1').digest('hex');
      const stored = await hash(input, ARGON2_PARAMS);
      return { verify, input, stored };
    })();
  }
  return prepared;
}

async function measure(durationSeconds, concurrency) {
  const { verify, input, stored } = await prepare();
  // One round first, so the figure excludes first-call costs and whatever ran just before.
  await Promise.all(Array.from({ length: concurrency }, () => verify(stored, input)));
  let verifies = 0;
  let failures = 0;
  const cpuBefore = process.cpuUsage();
  const start = process.hrtime.bigint();
  const end = start + BigInt(Math.round(durationSeconds * 1e9));
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (process.hrtime.bigint() < end) {
        if (await verify(stored, input)) verifies += 1;
        else failures += 1;
      }
    }),
  );
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  const cpu = process.cpuUsage(cpuBefore);
  return { verifies, failures, seconds, cpuMs: (cpu.user + cpu.system) / 1000, kernelMs: cpu.system / 1000, concurrency, params: ARGON2_PARAMS };
}

/** The same, plus how many cores other processes kept busy meanwhile. */
async function measureWithOthers(durationSeconds, concurrency) {
  const { machineBusyMs } = await import('./machine.mjs');
  const before = machineBusyMs();
  const result = await measure(durationSeconds, concurrency);
  const after = machineBusyMs();
  result.otherCores = before === null ? null : Math.max(0, (after - before - result.cpuMs) / 1000 / result.seconds);
  return result;
}

/** Merges chunks into one figure: verifies per second, CPU per verify. */
export function summarizeRaw(chunks) {
  const ok = chunks.filter(Boolean);
  if (ok.length === 0) return null;
  const sum = (key) => ok.reduce((total, chunk) => total + chunk[key], 0);
  const verifies = sum('verifies');
  const seconds = sum('seconds');
  return {
    rate: verifies / seconds,
    verifies,
    seconds,
    failures: sum('failures'),
    cpuMsPerVerify: verifies ? sum('cpuMs') / verifies : null,
    kernelMsPerVerify: verifies ? sum('kernelMs') / verifies : null,
    cpuCores: sum('cpuMs') / 1000 / seconds,
    chunkRates: ok.map((chunk) => Math.round((chunk.verifies / chunk.seconds) * 10) / 10),
    otherCoresMax: ok.some((chunk) => typeof chunk.otherCores === 'number')
      ? Math.round(Math.max(...ok.map((chunk) => chunk.otherCores ?? 0)) * 100) / 100
      : null,
    concurrency: ok[0].concurrency,
    params: ok[0].params,
  };
}

/** A long-lived measuring process; `measure` resolves with one chunk's counts. */
export function startRawWorker() {
  const child = fork(fileURLToPath(import.meta.url), ['--worker'], { execArgv: [], stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  let pending = null;
  child.on('message', (message) => {
    const current = pending;
    pending = null;
    if (!current) return;
    if (message.error) current.reject(new Error(message.error));
    else current.resolve(message.result);
  });
  child.on('exit', (code) => {
    if (pending) pending.reject(new Error(`the argon2 worker exited with ${code}`));
    pending = null;
  });
  return {
    pid: child.pid,
    measure(seconds, concurrency) {
      return new Promise((resolve, reject) => {
        if (child.exitCode !== null) return reject(new Error('the argon2 worker is not running'));
        pending = { resolve, reject };
        child.send({ seconds, concurrency });
      });
    },
    stop() {
      child.disconnect();
      child.kill();
    },
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv[2] === '--worker') {
    process.on('message', ({ seconds, concurrency }) => {
      measureWithOthers(seconds, concurrency).then(
        (result) => process.send({ result }),
        (error) => process.send({ error: error.message }),
      );
    });
    process.on('disconnect', () => process.exit(0));
  } else {
    const [duration = '10', concurrency = '8'] = process.argv.slice(2);
    const result = summarizeRaw([await measure(Number(duration), Number(concurrency))]);
    process.stdout.write(`${JSON.stringify(result)}\n`);
  }
}
