import { verify } from '@node-rs/argon2';
import { afterEach, describe, expect, it } from 'vitest';
import { isAppError } from './errors.js';
import { ARGON2_WAITING_PER_THREAD, createPasswordHasher, type ClosablePasswordHasher } from './passwords.js';

const PARAMS = { memoryCost: 4096, timeCost: 3, parallelism: 1 };
const SECRET = 'a'.repeat(64);

describe('the password hasher (decision 0011)', () => {
  const hashers: ClosablePasswordHasher[] = [];
  const hasher = async (threads?: number) => {
    const made = await createPasswordHasher(PARAMS, threads);
    hashers.push(made);
    return made;
  };

  afterEach(async () => {
    await Promise.all(hashers.splice(0).map((made) => made.close()));
  });

  it('makes argon2id hashes with its parameters that verify the right password only', async () => {
    const passwords = await hasher();
    const stored = await passwords.hash(SECRET);
    expect(stored).toMatch(/^\$argon2id\$v=19\$m=4096,t=3,p=1\$/);
    // The same hash the library itself accepts: nothing about it is the thread's own.
    expect(await verify(stored, SECRET)).toBe(true);
    expect(await passwords.verify(stored, SECRET)).toBe(true);
    expect(await passwords.verify(stored, 'b'.repeat(64))).toBe(false);
    expect(await passwords.verifyDummy(SECRET)).toBe(false);
    expect(passwords.needsRehash(stored)).toBe(false);
  });

  it('asks for a new hash when a stored one was made with other parameters, another argon2 or an older version', async () => {
    const passwords = await hasher();
    const stored = await passwords.hash(SECRET);
    const [, , , , salt, digest] = stored.split('$');
    const made = (head: string) => `$${head}$${salt}$${digest}`;
    expect(passwords.needsRehash(made('argon2id$v=19$m=4096,t=3,p=1'))).toBe(false);
    expect(passwords.needsRehash(made('argon2id$v=19$m=4096,t=2,p=1'))).toBe(true);
    expect(passwords.needsRehash(made('argon2id$v=19$m=19456,t=3,p=1'))).toBe(true);
    expect(passwords.needsRehash(made('argon2id$v=19$m=4096,t=3,p=2'))).toBe(true);
    expect(passwords.needsRehash(made('argon2i$v=19$m=4096,t=3,p=1'))).toBe(true);
    expect(passwords.needsRehash('not a hash')).toBe(true);
  });

  it(`refuses a hash beyond ${ARGON2_WAITING_PER_THREAD} waiting per thread at once, as unavailable, and takes more once they are done`, async () => {
    const one = await hasher(1);
    const stored = await one.hash(SECRET);
    const flood = await Promise.allSettled(Array.from({ length: 200 + ARGON2_WAITING_PER_THREAD }, () => one.verify(stored, SECRET)));
    const refused = flood.filter((result) => result.status === 'rejected');
    // The thread holds two; 128 wait; the rest are refused at once.
    expect(flood.filter((result) => result.status === 'fulfilled' && result.value === true)).toHaveLength(ARGON2_WAITING_PER_THREAD + 2);
    expect(refused).toHaveLength(198);
    for (const result of refused) expect(result.status === 'rejected' && isAppError(result.reason) ? result.reason.code : result).toBe('unavailable');
    expect(await one.verify(stored, SECRET)).toBe(true);
  });

  it('answers false for a stored value that is not a PHC string', async () => {
    const passwords = await hasher();
    expect(await passwords.verify('not a hash', SECRET)).toBe(false);
    expect(await passwords.verify('', SECRET)).toBe(false);
  });

  it('keeps argon2 to its threads: on one thread, parallel verifications take turns', async () => {
    const one = await hasher(1);
    const stored = await one.hash(SECRET);
    // A first round starts every thread the hasher would use, so no thread's start is timed.
    await Promise.all(Array.from({ length: 8 }, () => one.verify(stored, SECRET)));
    // One thread hashes one password at a time, so while sixteen wait their turns the process
    // uses at most about one core (1.02–1.03 here), however long they take: load from other test
    // files on the same cores stretches the time, never the share. Side by side on two cores the
    // share is 1.6–1.9 on a quiet machine (less when the cores are busy elsewhere).
    const cpu = process.cpuUsage();
    const started = performance.now();
    const results = await Promise.all(Array.from({ length: 16 }, () => one.verify(stored, SECRET)));
    const wallMs = performance.now() - started;
    const used = process.cpuUsage(cpu);
    expect(results).toEqual(Array.from({ length: 16 }, () => true));
    expect((used.user + used.system) / 1000).toBeLessThan(1.2 * wallMs);
  });

  it('fails a verification that got no answer instead of calling the password wrong', async () => {
    const passwords = await hasher(1);
    const stored = await passwords.hash(SECRET);
    const pending = Promise.allSettled(Array.from({ length: 3 }, () => passwords.verify(stored, 'b'.repeat(64))));
    await passwords.close();
    for (const outcome of await pending) {
      expect(outcome.status).toBe('rejected');
      expect(String((outcome as PromiseRejectedResult).reason)).toMatch(/argon2 verify got no answer: the service is stopping/);
    }
  });
});
