import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { SecretSource } from '../config.js';

/**
 * The key of FOYER_ENV=test without SECRET_KEY (decision 0012): fixed, so every test process and
 * server it starts reads what another wrote. It protects nothing and only `test` accepts it.
 */
const TEST_SECRET = 'foyer-test-secret-key-never-use-it-where-it-matters';

/** Generated local keys, by file: read once per process, and stable for as long as it runs. */
const localKeys = new Map<string, Buffer>();

function readKey(path: string): Buffer {
  const text = readFileSync(path, 'utf8').trim();
  if (text.length < 32) throw new Error(`${path} holds no usable key (at least 32 characters); delete it to have a new one made`);
  return Buffer.from(text, 'utf8');
}

/**
 * The local environment's key: made once, on first use, next to the database, readable by its
 * owner only. `wx` makes two processes starting together agree on whichever wrote first.
 */
function localFileKey(path: string): Buffer {
  const known = localKeys.get(path);
  if (known !== undefined) return known;
  mkdirSync(dirname(path), { recursive: true });
  try {
    writeFileSync(path, `${randomBytes(32).toString('base64url')}\n`, { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if (!(typeof error === 'object' && error !== null && 'code' in error && error.code === 'EEXIST')) throw error;
  }
  const key = readKey(path);
  localKeys.set(path, key);
  return key;
}

/** The server's secret as bytes; for the local file, created at the first call (at boot). */
export function secretBytes(source: SecretSource): Buffer {
  switch (source.kind) {
    case 'env':
      return Buffer.from(source.value, 'utf8');
    case 'test':
      return Buffer.from(TEST_SECRET, 'utf8');
    case 'localFile':
      return localFileKey(source.path);
  }
}
