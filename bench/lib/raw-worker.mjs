// A floor measured alone: a loop of the one operation a flow cannot do without (an argon2id
// verification, an ID token's signature, a SAML response's XML signature), in its own process,
// taken in chunks between the chunks of the flow's load. `summarizeRaw` merges the chunks.
//
// In the harness: const floor = startWorker(script, setup, label); await floor.measure(1, 8); floor.stop();
// In the worker script: serveMeasurements(async (setup) => once), where `once()` resolves true
// for an operation that succeeded.
import { fork } from 'node:child_process';
import { machineBusyMs } from './machine.mjs';

/** `concurrency` loops, each awaiting `once()` again until `durationSeconds` are over. */
async function timedLoop(durationSeconds, concurrency, once) {
  // One round first, so the figure excludes first-call costs and whatever ran just before.
  await Promise.all(Array.from({ length: concurrency }, () => once()));
  let verifies = 0;
  let failures = 0;
  const cpuBefore = process.cpuUsage();
  const machineBefore = machineBusyMs();
  const start = process.hrtime.bigint();
  const end = start + BigInt(Math.round(durationSeconds * 1e9));
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (process.hrtime.bigint() < end) {
        if (await once()) verifies += 1;
        else failures += 1;
      }
    }),
  );
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  const cpu = process.cpuUsage(cpuBefore);
  const cpuMs = (cpu.user + cpu.system) / 1000;
  const machineAfter = machineBusyMs();
  return {
    verifies,
    failures,
    seconds,
    cpuMs,
    kernelMs: cpu.system / 1000,
    concurrency,
    // Whatever else kept the cores busy meanwhile (other processes), in cores.
    otherCores: machineBefore === null ? null : Math.max(0, (machineAfter - machineBefore - cpuMs) / 1000 / seconds),
  };
}

/**
 * The worker's side: `{ setup }` arrives first and `prepare(setup)` makes the operation; then each
 * `{ seconds, concurrency }` is answered with one chunk's counts.
 */
export function serveMeasurements(prepare) {
  let once;
  async function answer(message) {
    if (message.setup !== undefined) {
      once = await prepare(message.setup);
      return null;
    }
    return timedLoop(message.seconds, message.concurrency, once);
  }
  process.on('message', (message) => {
    answer(message).then(
      (result) => process.send({ result }),
      (error) => process.send({ error: error.message }),
    );
  });
  process.on('disconnect', () => process.exit(0));
}

/** The harness's side: the worker started, `setup` handed over, then `measure` per chunk. */
export function startWorker(script, setup, label) {
  const child = fork(script, ['--worker'], { execArgv: [], stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  let pending = null;
  child.on('message', (message) => {
    const current = pending;
    pending = null;
    if (!current) return;
    if (message.error) current.reject(new Error(`${label}: ${message.error}`));
    else current.resolve(message.result);
  });
  child.on('exit', (code) => {
    if (pending) pending.reject(new Error(`${label} exited with ${code}`));
    pending = null;
  });
  const ask = (message) =>
    new Promise((resolve, reject) => {
      if (child.exitCode !== null) return reject(new Error(`${label} is not running`));
      pending = { resolve, reject };
      child.send(message);
    });
  const ready = ask({ setup });
  // A failed setup is reported by the first `measure`.
  ready.catch(() => {});
  return {
    pid: child.pid,
    ready,
    async measure(seconds, concurrency) {
      await ready;
      return ask({ seconds, concurrency });
    },
    stop() {
      child.disconnect();
      child.kill();
    },
  };
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
