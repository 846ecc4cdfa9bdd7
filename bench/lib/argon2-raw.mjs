// The physical limit of a password sign-in on this machine: how many argon2id verifications per
// second @node-rs/argon2 does with the server's parameters, `concurrency` of them in flight, run as
// the server runs them (decision 0011): its password hasher (packages/server/dist/lib/passwords.js),
// one thread per core, each holding the next verification so no core waits between two. On two
// cores that is about 15 % more than the same library on libuv's default four threads.
//
// It runs in its own process (nothing else shares its event loop or threads), which stays up
// so the harness can take it in chunks between the chunks of the sign-in load (raw-worker.mjs):
//   const raw = startRawWorker(); await raw.measure(2, 8); ...; raw.stop();
// As a script, one measurement: node bench/lib/argon2-raw.mjs [seconds=10] [concurrency=8]
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { serveMeasurements, startWorker, summarizeRaw } from './raw-worker.mjs';

export { summarizeRaw };

// Foyer's parameters (packages/server/src/config.ts: OWASP m=19 MiB, t=2, p=1; argon2id).
export const ARGON2_PARAMS = { algorithm: 2, memoryCost: 19456, timeCost: 2, parallelism: 1 };

/**
 * The server's own password hasher with its parameters (the build the harness made): the raw rate
 * and the verify-only floor hash exactly as Foyer does, so what they leave out is all that differs.
 */
export async function serverPasswordHasher() {
  const { createPasswordHasher } = await import(new URL('../../packages/server/dist/lib/passwords.js', import.meta.url).href);
  const { memoryCost, timeCost, parallelism } = ARGON2_PARAMS;
  return createPasswordHasher({ memoryCost, timeCost, parallelism });
}

/** One verification of a stored hash, as a function of no arguments. */
async function prepare() {
  const passwords = await serverPasswordHasher();
  // The server hashes the browser's SHA-256 hex of the password (spec §5).
  const input = createHash('sha256').update('bench password 1').digest('hex');
  const stored = await passwords.hash(input);
  return () => passwords.verify(stored, input);
}

/** The measuring process; each chunk's counts carry the parameters. */
export function startRawWorker() {
  const worker = startWorker(fileURLToPath(import.meta.url), {}, 'the argon2 worker');
  return {
    ...worker,
    async measure(seconds, concurrency) {
      return { ...(await worker.measure(seconds, concurrency)), params: ARGON2_PARAMS };
    },
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv[2] === '--worker') {
    serveMeasurements(prepare);
  } else {
    const [duration = '10', concurrency = '8'] = process.argv.slice(2);
    const worker = startRawWorker();
    const result = summarizeRaw([await worker.measure(Number(duration), Number(concurrency))]);
    worker.stop();
    process.stdout.write(`${JSON.stringify(result)}\n`);
  }
}
