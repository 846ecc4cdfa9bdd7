import { describe, expect, it } from 'vitest';
import { MINUTE, createTestUser, dbUnavailable, postSignIn, uniqueEmail, useTestApp } from '../../../test/helpers.js';

describe.skipIf(dbUnavailable)('sign-in timing at production argon2 cost', () => {
  const t = useTestApp({ env: { ARGON2_MEMORY_KIB: '19456', ARGON2_TIME: '2' } });

  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
  const timed = async (body: { email: string; password: string }) => {
    const start = performance.now();
    await postSignIn(t.app, body);
    return performance.now() - start;
  };

  // Relative, not absolute: an unknown or locked email must cost about what a wrong password
  // costs (one argon2 verification), or response times would list the accounts (ASVS V6.3.8).
  it('costs about the same for a wrong password, an unknown email and a locked email', async () => {
    const known = await createTestUser(t);
    const locked = uniqueEmail('locked');
    await t.db.insertInto('login_failures').values({ email_key: locked, failures: 10, last_failure_at: t.clock.now(), locked_until: t.clock.now() + 30 * MINUTE }).execute();
    const samples = { wrong: [] as number[], unknown: [] as number[], locked: [] as number[] };
    for (let round = 0; round < 7; round++) {
      samples.wrong.push(await timed({ email: known.email, password: `wrong-${round}` }));
      samples.unknown.push(await timed({ email: uniqueEmail('nobody'), password: 'wrong' }));
      samples.locked.push(await timed({ email: locked, password: 'wrong' }));
    }
    const wrong = median(samples.wrong);
    expect(median(samples.unknown) / wrong).toBeGreaterThan(0.5);
    expect(median(samples.unknown) / wrong).toBeLessThan(2);
    expect(median(samples.locked) / wrong).toBeGreaterThan(0.5);
    expect(median(samples.locked) / wrong).toBeLessThan(2);
  });
});
