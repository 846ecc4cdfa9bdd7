import { describe, expect, it } from 'vitest';
import { TEST_DB } from '../../test/helpers.js';
import { fullCollection, IDLE_GROWTH_BYTES, IDLE_LOOKS, IdleCollector } from './idle-collection.js';

const MB = 1024 * 1024;

/** `looks` looks at the collector; what each answered. */
async function look(collector: IdleCollector, looks: number): Promise<boolean[]> {
  const answers: boolean[] = [];
  for (let index = 0; index < looks; index++) answers.push(await collector.check());
  return answers;
}

/** The looks of a quiet spell long enough to collect: only the last may collect. */
const quietSpell = (collected: boolean) => [...Array<boolean>(IDLE_LOOKS - 1).fill(false), collected];

/**
 * A service whose busy share and heap the test sets; `collect` drops the heap to `afterCollect`.
 * It has had its first idle moment, which collected what starting up left.
 */
async function service(initialHeap: number, initialCommitted = initialHeap) {
  const state = {
    utilization: 0,
    heap: initialHeap,
    afterCollect: initialHeap,
    committed: initialCommitted,
    committedAfterCollect: initialCommitted,
    collections: 0,
  };
  const collector = new IdleCollector({
    utilization: () => state.utilization,
    heapUsed: () => state.heap,
    heapCommitted: () => state.committed,
    collect: async () => {
      state.collections += 1;
      state.heap = state.afterCollect;
      state.committed = state.committedAfterCollect;
    },
  });
  await look(collector, IDLE_LOOKS);
  state.collections = 0;
  return { state, collector };
}

describe('IdleCollector (decision 0029)', () => {
  it('collects what starting up left once the service has been quiet for a while', async () => {
    let heap = 50 * MB;
    const collections: number[] = [];
    const collector = new IdleCollector({
      utilization: () => 0,
      heapUsed: () => heap,
      heapCommitted: () => heap,
      collect: async () => {
        collections.push(heap);
        heap = 38 * MB;
      },
    });
    expect(await look(collector, IDLE_LOOKS)).toEqual(quietSpell(true));
    expect(await collector.check()).toBe(false);
    expect(collections).toEqual([50 * MB]);
  });

  it('collects once the service is idle after its heap grew, and not again until it grows again', async () => {
    const { state, collector } = await service(40 * MB);
    state.utilization = 0.9;
    state.heap = 140 * MB;
    expect(await collector.check()).toBe(false);
    state.utilization = 0.01;
    state.afterCollect = 45 * MB;
    expect(await look(collector, IDLE_LOOKS)).toEqual(quietSpell(true));
    expect(state.collections).toBe(1);
    expect(await collector.check()).toBe(false);
    state.heap = 45 * MB + IDLE_GROWTH_BYTES;
    expect(await collector.check()).toBe(true);
    expect(state.collections).toBe(2);
  });

  it('does not collect in lulls between busy intervals, however large the heap', async () => {
    const { state, collector } = await service(40 * MB);
    state.heap = 400 * MB;
    for (let burst = 0; burst < 5; burst++) {
      state.utilization = 0.6;
      expect(await collector.check()).toBe(false);
      state.utilization = 0;
      expect(await look(collector, IDLE_LOOKS - 1)).toEqual(Array<boolean>(IDLE_LOOKS - 1).fill(false));
    }
    expect(state.collections).toBe(0);
    expect(await collector.check()).toBe(true);
  });

  it('leaves a busy service to V8, however large its heap', async () => {
    const { state, collector } = await service(40 * MB);
    state.utilization = 0.3;
    state.heap = 400 * MB;
    for (let check = 0; check < 5; check++) expect(await collector.check()).toBe(false);
    expect(state.collections).toBe(0);
  });

  it('counts growth from the lowest heap seen, so V8’s own collections are not redone', async () => {
    const { state, collector } = await service(80 * MB);
    state.utilization = 0.9;
    state.heap = 40 * MB;
    await collector.check();
    state.utilization = 0;
    state.heap = 40 * MB + IDLE_GROWTH_BYTES - 1;
    expect(await look(collector, IDLE_LOOKS)).toEqual(quietSpell(false));
    state.heap = 40 * MB + IDLE_GROWTH_BYTES;
    expect(await collector.check()).toBe(true);
  });

  it('collects once when a burst left its pages committed though V8 brought the use back down', async () => {
    const { state, collector } = await service(40 * MB, 60 * MB);
    state.utilization = 0.9;
    state.heap = 45 * MB;
    state.committed = 120 * MB;
    expect(await collector.check()).toBe(false);
    state.utilization = 0;
    state.afterCollect = 38 * MB;
    state.committedAfterCollect = 64 * MB;
    expect(await look(collector, IDLE_LOOKS)).toEqual(quietSpell(true));
    expect(state.committed).toBe(64 * MB);
    expect(await collector.check()).toBe(false);
    // Pages a collection cannot give back are not tried again every interval.
    state.committed = 100 * MB;
    state.committedAfterCollect = 100 * MB;
    expect(await collector.check()).toBe(true);
    for (let check = 0; check < 5; check++) expect(await collector.check()).toBe(false);
    expect(state.collections).toBe(2);
  });

  it('does not start a second collection while one runs', async () => {
    let heap = 0;
    let collections = 0;
    let finish: () => void = () => undefined;
    const collector = new IdleCollector({
      utilization: () => 0,
      heapUsed: () => heap,
      heapCommitted: () => heap,
      collect: () => {
        collections += 1;
        return new Promise<void>((resolve) => (finish = resolve));
      },
    });
    heap = 200 * MB;
    expect(await look(collector, IDLE_LOOKS - 1)).toEqual(Array<boolean>(IDLE_LOOKS - 1).fill(false));
    const first = collector.check();
    expect(await collector.check()).toBe(false);
    heap = 40 * MB;
    finish();
    expect(await first).toBe(true);
    expect(collections).toBe(1);
  });
});

describe.skipIf(TEST_DB !== 'sqlite')('fullCollection', () => {
  it('gives back the heap a burst left behind', async () => {
    const heapUsed = () => process.memoryUsage().heapUsed;
    const collect = fullCollection(heapUsed);
    // A burst: objects that live long enough to reach the old generation, then die.
    let burst: Array<{ index: number; text: string }[]> = [];
    for (let round = 0; round < 8; round++) burst.push(Array.from({ length: 100_000 }, (_, index) => ({ index, text: `row ${index}` })));
    const before = heapUsed();
    burst = [];
    await collect();
    expect(burst).toHaveLength(0);
    expect(before - heapUsed()).toBeGreaterThan(30 * MB);
  });
});
