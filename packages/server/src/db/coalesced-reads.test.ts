import { describe, expect, it } from 'vitest';
import { CoalescedReads } from './coalesced-reads.js';

/** A store of rows by key that records each read it was asked for. */
function store(rows: Record<string, string>, fail?: (keys: string[]) => boolean) {
  const reads: string[][] = [];
  const readMany = (keys: string[]) => {
    reads.push(keys);
    if (fail?.(keys)) return Promise.reject(new Error(`read of ${keys.join(',')} failed`));
    return Promise.resolve(new Map(keys.filter((key) => key in rows).map((key) => [key, rows[key]] as const)));
  };
  return { reads, readMany };
}

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('CoalescedReads', () => {
  it('reads the keys asked for in one turn with one statement, and gives each caller its own row', async () => {
    const { reads, readMany } = store({ a: 'row a', b: 'row b', c: 'row c' });
    const coalesced = new CoalescedReads(readMany, 10);
    const answers = await Promise.all([coalesced.read('a'), coalesced.read('b'), coalesced.read('missing'), coalesced.read('a')]);
    expect(answers).toEqual(['row a', 'row b', undefined, 'row a']);
    // Each key once, in the order first asked.
    expect(reads).toEqual([['a', 'b', 'missing']]);
  });

  it('reads again for keys asked in a later turn: nothing is kept between turns', async () => {
    const rows: Record<string, string> = { a: 'first' };
    const { reads, readMany } = store(rows);
    const coalesced = new CoalescedReads(readMany, 10);
    expect(await coalesced.read('a')).toBe('first');
    rows.a = 'changed';
    await nextTurn();
    expect(await coalesced.read('a')).toBe('changed');
    expect(reads).toEqual([['a'], ['a']]);
  });

  it('splits a turn with more keys than a statement takes', async () => {
    const { reads, readMany } = store({ k0: '0', k4: '4' });
    const coalesced = new CoalescedReads(readMany, 2);
    const answers = await Promise.all(['k0', 'k1', 'k2', 'k3', 'k4'].map((key) => coalesced.read(key)));
    expect(answers).toEqual(['0', undefined, undefined, undefined, '4']);
    expect(reads).toEqual([['k0', 'k1'], ['k2', 'k3'], ['k4']]);
  });

  it('fails the callers of a failed statement only, each with its error', async () => {
    const { readMany } = store({ a: 'row a', c: 'row c' }, (keys) => keys.includes('b'));
    const coalesced = new CoalescedReads(readMany, 2);
    const answers = await Promise.allSettled([coalesced.read('a'), coalesced.read('b'), coalesced.read('c')]);
    expect(answers.map((answer) => answer.status)).toEqual(['rejected', 'rejected', 'fulfilled']);
    expect(answers[0]).toMatchObject({ reason: new Error('read of a,b failed') });
    expect(answers[2]).toEqual({ status: 'fulfilled', value: 'row c' });
    // The next turn reads afresh.
    expect(await coalesced.read('a')).toBe('row a');
  });

  it('fails its callers, and nothing else, when the read throws instead of failing its promise', async () => {
    const coalesced = new CoalescedReads<string>(() => {
      throw new Error('no connection');
    }, 10);
    const answers = await Promise.allSettled([coalesced.read('a'), coalesced.read('b')]);
    expect(answers).toEqual([
      { status: 'rejected', reason: new Error('no connection') },
      { status: 'rejected', reason: new Error('no connection') },
    ]);
  });
});
