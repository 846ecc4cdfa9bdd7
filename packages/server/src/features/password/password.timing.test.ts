import { describe, expect, it } from 'vitest';
import { mailsTo } from '../../../test/account-entry.js';
import { createTestUser, dbUnavailable, uniqueEmail, useTestApp } from '../../../test/helpers.js';
import { postForgot, randomAddress } from '../../../test/password.js';
import { cpuMs, lowerQuartile } from '../../../test/timing.js';

const ROUNDS = 25;

describe.skipIf(dbUnavailable)('forgot-password timing', () => {
  const t = useTestApp();

  // ASVS V6.3.8: the known path writes a token, a mail and an audit row; the unknown path must
  // cost about the same, or the response time would tell which emails have accounts. Each call
  // comes from its own address and each known email is asked once, so no rate limit interferes;
  // the two kinds take turns, so a slow spell of the machine hits both. The work is compared as
  // the process's CPU per call: on a machine busy with other processes (the other test files)
  // wall time stretches with the wait for a core, by more for whichever call waited longer.
  //
  // Other work in this process (a garbage collection, what an earlier test file left running)
  // only ever adds to a call, so each kind is judged by its lower quartile, the work the call
  // itself does. A burst of that other work can still land on one kind for a stretch (a median of
  // 15 once gave 0.58 in a CI run), so a ratio out of range is measured once more: a real gap shows
  // in both. Without the unknown path's equal work the ratio is 0.53-0.58 every time; with it
  // 0.88-1.13, alone and beside the whole suite.
  it(`answers a known and an unknown email after about the same work (lower quartiles of ${ROUNDS})`, async () => {
    const accounts = await Promise.all(Array.from({ length: 2 * ROUNDS + 1 }, () => createTestUser(t)));
    const ask = (email: string) => cpuMs(() => postForgot(t, { email }, { remoteAddress: randomAddress() }));
    const unasked = accounts.map((account) => account.email);
    const warmUp = unasked.pop() ?? '';
    await ask(warmUp);
    await ask(uniqueEmail('warm-up'));
    const measure = async () => {
      const samples = { known: [] as number[], unknown: [] as number[] };
      for (let round = 0; round < ROUNDS; round++) {
        samples.known.push(await ask(unasked.pop() ?? ''));
        samples.unknown.push(await ask(uniqueEmail('nobody')));
      }
      const known = lowerQuartile(samples.known);
      const unknown = lowerQuartile(samples.unknown);
      return { ratio: unknown / known, text: `unknown / known: ${unknown.toFixed(2)} / ${known.toFixed(2)} ms of CPU` };
    };
    const inRange = (ratio: number) => ratio > 0.7 && ratio < 2;
    let measured = await measure();
    if (!inRange(measured.ratio)) measured = await measure();
    expect(await mailsTo(t, warmUp)).toHaveLength(1);
    expect(measured.ratio, measured.text).toBeGreaterThan(0.7);
    expect(measured.ratio, measured.text).toBeLessThan(2);
  });
});
