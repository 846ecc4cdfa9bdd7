// Preloaded with `node --require` (npm start does), before Node reads the ESM entry point: the ESM
// loader reads files through libuv's threadpool, which is created once, at its first use, with
// the UV_THREADPOOL_SIZE found then. Set any later (in main.ts) and it is ignored.
// eslint-disable-next-line @typescript-eslint/no-require-imports -- a CommonJS preload: an ESM import would make it an ES module, read too late
import os = require('node:os');

/**
 * Decision 0011: libuv's threadpool serves WebCrypto's signature checks (Google's ID tokens),
 * zlib, file reads and DNS lookups, and holds 4 threads by default. One thread per core lets
 * signature checks use every core; four more keep the default's room for file and DNS work beside
 * them. (argon2id has threads of its own: lib/passwords.ts.)
 */
const MAX_THREADS = 1024;

const configured = process.env.UV_THREADPOOL_SIZE;
if (configured === undefined || configured === '') {
  process.env.UV_THREADPOOL_SIZE = String(Math.min(MAX_THREADS, os.availableParallelism() + 4));
}
