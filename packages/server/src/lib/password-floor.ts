import { hash } from 'node:crypto';
import { dictionary } from '@zxcvbn-ts/language-common';
import { AppError } from './errors.js';

/**
 * The server's password floor (decision 0014). The browser's strength check can be skipped by
 * any client that calls the API directly, so sign-up, setup and reset also refuse the SHA-256 of
 * the empty string and of every password in the strength checker's own list of common passwords
 * (@zxcvbn-ts/language-common, about 49,000 entries; the same package version the web app
 * estimates with, so the two never disagree about what is common).
 *
 * To these it adds what no dictionary lists but anyone can type: every string of one or two
 * printable ASCII characters, and each such character repeated up to 16 times ('aaaaaaaa').
 *
 * The set is built once per process, on first use: 8-byte prefixes of the digests in a sorted
 * BigUint64Array (about 400 KB instead of megabytes of strings). A 64-bit prefix collision with
 * a real password's digest is about one in 10^14.
 */
let floor: BigUint64Array | undefined;

function prefixOf(hexDigest: string): bigint {
  return BigInt(`0x${hexDigest.slice(0, 16)}`);
}

const PRINTABLE = Array.from({ length: 0x7f - 0x20 }, (_, index) => String.fromCharCode(0x20 + index));

function trivialPasswords(): string[] {
  const out: string[] = [];
  for (const first of PRINTABLE) {
    for (const second of PRINTABLE) out.push(first + second);
    for (let length = 1; length <= 16; length++) if (length !== 2) out.push(first.repeat(length));
  }
  return out;
}

function commonDigests(): BigUint64Array {
  if (floor !== undefined) return floor;
  const passwords = ['', ...trivialPasswords(), ...(dictionary['passwords-common'] ?? [])];
  const prefixes = new BigUint64Array(passwords.length);
  // One-shot hex digests: no Hash object and no Buffer per password, whose native memory would
  // stay in the allocator's free lists after startup (about 10 MB of resident memory for 58,000).
  passwords.forEach((password, index) => {
    prefixes[index] = prefixOf(hash('sha256', password));
  });
  prefixes.sort();
  floor = prefixes;
  return floor;
}

/** How many common passwords the floor holds (the empty one included). */
export function commonPasswordCount(): number {
  return commonDigests().length;
}

/** True when the browser's SHA-256 hex is that of the empty string or of a common password. */
export function isCommonPassword(hashPassword: string): boolean {
  if (!/^[0-9a-f]{64}$/i.test(hashPassword)) return false;
  const target = prefixOf(hashPassword.toLowerCase());
  const prefixes = commonDigests();
  let low = 0;
  let high = prefixes.length - 1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    const value = prefixes[middle] as bigint;
    if (value === target) return true;
    if (value < target) low = middle + 1;
    else high = middle - 1;
  }
  return false;
}

/** Throws commonPassword (400) for a password below the floor. */
export function refuseCommonPassword(hashPassword: string): void {
  if (isCommonPassword(hashPassword)) throw new AppError('commonPassword');
}
