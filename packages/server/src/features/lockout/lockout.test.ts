import { normalizeEmail } from '@foyer/contract';
import { describe, expect, it } from 'vitest';
import { createTestUser, dbUnavailable, holdNextPasswordCheck, postSignIn, useTestApp, type TestApp } from '../../../test/helpers.js';
import { getFailureCount } from './lockout.repo.js';

/** Counts the verifications against a real stored hash (the dummy hash is not counted). */
function countRealChecks(t: TestApp): { readonly count: number } {
  const passwords = t.app.passwords;
  const verify = passwords.verify.bind(passwords);
  const counter = { count: 0 };
  passwords.verify = async (storedHash, hashPassword) => {
    counter.count++;
    return verify(storedHash, hashPassword);
  };
  return counter;
}

describe.skipIf(dbUnavailable)('lockout under parallel guesses (decision 0003)', () => {
  const t = useTestApp();

  it('checks at most the threshold of 29 simultaneous guesses against the real hash', async () => {
    const account = await createTestUser(t);
    const checks = countRealChecks(t);
    const guesses = Array.from({ length: 29 }, (_, i) => postSignIn(t.app, { email: account.email, password: `wrong guess ${i}` }));
    const answers = await Promise.all(guesses);

    expect(checks.count).toBeLessThanOrEqual(t.config.lockoutThreshold);
    const statuses = answers.map((answer) => answer.statusCode);
    expect(statuses.filter((status) => status === 401).length).toBeLessThan(t.config.lockoutThreshold);
    expect(statuses.filter((status) => status === 423).length).toBeGreaterThanOrEqual(29 - t.config.lockoutThreshold);
    expect(statuses.every((status) => status === 401 || status === 423)).toBe(true);
    // The lock is in place: now even the right password is refused.
    expect((await postSignIn(t.app, account)).statusCode).toBe(423);
    expect((await getFailureCount(t.db, normalizeEmail(account.email)))?.lockedUntil).not.toBeNull();
  });

  it('refuses the right password when it arrives among guesses beyond the threshold', async () => {
    const account = await createTestUser(t);
    // Nine failures already: one guess is left before the lock.
    for (let i = 0; i < 9; i++) await postSignIn(t.app, { email: account.email, password: `earlier ${i}` });
    const checks = countRealChecks(t);
    const wrong = Array.from({ length: 6 }, (_, i) => postSignIn(t.app, { email: account.email, password: `wrong ${i}` }));
    const answers = await Promise.all([...wrong, postSignIn(t.app, account)]);

    expect(checks.count).toBe(1);
    expect(answers.filter((answer) => answer.statusCode === 200).length).toBeLessThanOrEqual(1);
    const succeeded = answers.some((answer) => answer.statusCode === 200);
    // Either the right password had the one remaining check (and cleared the count), or the lock holds.
    if (!succeeded) expect((await postSignIn(t.app, account)).statusCode).toBe(423);
  });

  it('sets the lock from a refused attempt when the one that reached the threshold gave its place back, so it runs out', async () => {
    // The tenth attempt is a right password on an account that cannot sign in yet: it gives its
    // place back, while an eleventh, a guess, had already counted past the threshold.
    const account = await createTestUser(t, { verified: false });
    for (let i = 0; i < 9; i++) await postSignIn(t.app, { email: account.email, password: `earlier ${i}` });
    const check = holdNextPasswordCheck(t);
    const tenth = postSignIn(t.app, account);
    await check.inside;
    const eleventh = await postSignIn(t.app, { email: account.email, password: 'a guess' });
    check.release();
    expect(eleventh.json()).toEqual({ errorMessage: 'accountLocked' });
    expect((await tenth).json()).toEqual({ errorMessage: 'unverifiedAccount' });

    const count = await getFailureCount(t.db, normalizeEmail(account.email));
    expect(count?.lockedUntil).toBe(t.clock.now() + 30 * 60 * 1000);
    t.clock.advance(30 * 60 * 1000 + 1);
    // The lock ran out: the count starts again, so a guess is a guess, not a lock.
    expect((await postSignIn(t.app, { email: account.email, password: 'after the lock' })).json()).toEqual({ errorMessage: 'invalidCredentials' });
    expect((await getFailureCount(t.db, normalizeEmail(account.email)))?.failures).toBe(1);
  });

  it('does not count a right password as a failure, even on an account that cannot sign in yet', async () => {
    const account = await createTestUser(t, { verified: false });
    for (let i = 0; i < 15; i++) expect((await postSignIn(t.app, account)).json()).toEqual({ errorMessage: 'unverifiedAccount' });
    expect((await getFailureCount(t.db, normalizeEmail(account.email)))?.failures ?? 0).toBe(0);
  });
});
