import { describe, expect, it } from 'vitest';
import { MINUTE, createTestUser, dbUnavailable, postSignIn, uniqueEmail, useTestApp } from '../../../test/helpers.js';
import { median, timedMs } from '../../../test/timing.js';

const ROUNDS = 15;

describe.skipIf(dbUnavailable)('sign-in timing at production argon2 cost', () => {
  // A threshold above the rounds keeps the wrong-password account out of its own lock.
  const t = useTestApp({ env: { ARGON2_MEMORY_KIB: '19456', ARGON2_TIME: '2', LOCKOUT_THRESHOLD: '100' } });

  const timed = (body: { email: string; password: string }) => timedMs(() => postSignIn(t.app, body));

  // Relative, not absolute: an unknown or locked email must cost about what a wrong password
  // costs (one argon2 verification), or response times would list the accounts (ASVS V6.3.8).
  // The three kinds take turns in each round, so a slow spell of the machine hits all of them.
  it(`costs about the same for a wrong password, an unknown email and a locked email (medians of ${ROUNDS})`, async () => {
    const known = await createTestUser(t);
    const locked = uniqueEmail('locked');
    await t.db
      .insertInto('login_failures')
      .values({ email_key: locked, failures: 10, last_failure_at: t.clock.now(), locked_until: t.clock.now() + 30 * MINUTE })
      .execute();
    // Warm-up: the first calls pay for compiling and caching, whichever kind they are.
    await timed({ email: known.email, password: 'warm-up' });
    await timed({ email: uniqueEmail('warm-up'), password: 'warm-up' });
    const samples = { wrong: [] as number[], unknown: [] as number[], locked: [] as number[] };
    for (let round = 0; round < ROUNDS; round++) {
      samples.wrong.push(await timed({ email: known.email, password: `wrong-${round}` }));
      samples.unknown.push(await timed({ email: uniqueEmail('nobody'), password: 'wrong' }));
      samples.locked.push(await timed({ email: locked, password: 'wrong' }));
    }
    const wrong = median(samples.wrong);
    for (const kind of ['unknown', 'locked'] as const) {
      const ratio = median(samples[kind]) / wrong;
      expect(ratio, `${kind} / wrong password`).toBeGreaterThan(0.5);
      expect(ratio, `${kind} / wrong password`).toBeLessThan(2);
    }
  });
});
