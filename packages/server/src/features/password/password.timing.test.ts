import { describe, expect, it } from 'vitest';
import { mailsTo } from '../../../test/account-entry.js';
import { createTestUser, dbUnavailable, uniqueEmail, useTestApp } from '../../../test/helpers.js';
import { postForgot, randomAddress } from '../../../test/password.js';
import { cpuMs, median } from '../../../test/timing.js';

const ROUNDS = 15;

describe.skipIf(dbUnavailable)('forgot-password timing', () => {
  const t = useTestApp();

  // ASVS V6.3.8: the known path writes a token, a mail and an audit row; the unknown path must
  // cost about the same, or the response time would tell which emails have accounts. Each call
  // comes from its own address and each known email is asked once, so no rate limit interferes;
  // the two kinds take turns, so a slow spell of the machine hits both. The work is compared as
  // the process's CPU per call: on a machine busy with other processes (the other test files)
  // wall time stretches with the wait for a core, by more for whichever call waited longer. Without
  // the unknown path's equal work its share is 0.55-0.61 of the known path's, with it 0.86-1.2.
  it(`answers a known and an unknown email after about the same work (medians of ${ROUNDS})`, async () => {
    const accounts = await Promise.all(Array.from({ length: ROUNDS + 1 }, () => createTestUser(t)));
    const ask = (email: string) => cpuMs(() => postForgot(t, { email }, { remoteAddress: randomAddress() }));
    await ask(accounts[ROUNDS]?.email ?? '');
    await ask(uniqueEmail('warm-up'));
    const samples = { known: [] as number[], unknown: [] as number[] };
    for (let round = 0; round < ROUNDS; round++) {
      samples.known.push(await ask(accounts[round]?.email ?? ''));
      samples.unknown.push(await ask(uniqueEmail('nobody')));
    }
    expect(await mailsTo(t, accounts[0]?.email ?? '')).toHaveLength(1);
    const ratio = median(samples.unknown) / median(samples.known);
    expect(ratio, `unknown / known: ${median(samples.unknown).toFixed(2)} / ${median(samples.known).toFixed(2)} ms of CPU`).toBeGreaterThan(0.7);
    expect(ratio).toBeLessThan(2);
  });
});
