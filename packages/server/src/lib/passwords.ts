import { hash, parseOptions, verify, type Algorithm } from '@node-rs/argon2';
import { availableParallelism } from 'node:os';
import { randomToken } from './crypto.js';
import { Semaphore } from './semaphore.js';

// `Algorithm` is an ambient const enum, which isolatedModules cannot inline; 2 is Argon2id.
const ARGON2ID: Algorithm.Argon2id = 2;

export interface Argon2Params {
  memoryCost: number;
  timeCost: number;
  parallelism: number;
}

export interface PasswordHasher {
  /** argon2id over the browser's SHA-256 hex (spec §5; ASVS V11.4.2). */
  hash(hashPassword: string): Promise<string>;
  /** False for a mismatch or a malformed stored hash; runs on the libuv threadpool. */
  verify(storedHash: string, hashPassword: string): Promise<boolean>;
  /**
   * Spends the same work as a real verification and always fails. Used when there is no hash
   * to check (unknown email, locked email, account without password): closes the timing channel
   * that would otherwise tell which emails have accounts (ASVS V6.3.8).
   */
  verifyDummy(hashPassword: string): Promise<false>;
  /** True when a stored hash was made with other parameters than today's (upgrade on sign-in). */
  needsRehash(storedHash: string): boolean;
}

/**
 * Async because the dummy hash is made up front: the first unknown email must not be slower.
 *
 * At most one hash per core runs at a time (decision 0011): more would only make every hash
 * slower, and would take the threadpool's spare threads that file reads and DNS lookups need.
 * Waiting hashes queue in order, off the event loop.
 */
export async function createPasswordHasher(params: Argon2Params, concurrency: number = availableParallelism()): Promise<PasswordHasher> {
  const options = { algorithm: ARGON2ID, ...params };
  const dummyHash = await hash(randomToken(), options);
  const slots = new Semaphore(Math.max(1, concurrency));

  return {
    hash: (hashPassword) => slots.run(() => hash(hashPassword, options)),
    async verify(storedHash, hashPassword) {
      try {
        return await slots.run(() => verify(storedHash, hashPassword));
      } catch {
        // A stored value that is not a PHC string never matches.
        return false;
      }
    },
    async verifyDummy(hashPassword) {
      await slots.run(() => verify(dummyHash, hashPassword));
      return false;
    },
    needsRehash(storedHash) {
      try {
        const current = parseOptions(storedHash);
        return (
          current.algorithm !== ARGON2ID ||
          current.memoryCost !== params.memoryCost ||
          current.timeCost !== params.timeCost ||
          current.parallelism !== params.parallelism
        );
      } catch {
        return true;
      }
    },
  };
}
