import { describe, expect, it } from 'vitest';
import { createPasswordHasher } from './passwords.js';
import { Semaphore } from './semaphore.js';

const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

describe('Semaphore', () => {
  it('runs at most its limit at once, the rest in the order they came', async () => {
    const slots = new Semaphore(2);
    let running = 0;
    let most = 0;
    const order: number[] = [];
    await Promise.all(
      Array.from({ length: 7 }, (_, index) =>
        slots.run(async () => {
          running++;
          most = Math.max(most, running);
          order.push(index);
          await tick();
          running--;
        }),
      ),
    );
    expect(most).toBe(2);
    expect(order).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(slots.load).toEqual({ active: 0, waiting: 0 });
  });

  it('frees the slot when a task fails', async () => {
    const slots = new Semaphore(1);
    await expect(slots.run(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(slots.run(() => Promise.resolve('next'))).resolves.toBe('next');
  });
});

describe('the password hasher', () => {
  it('keeps argon2 to its concurrency: parallel verifications take turns', async () => {
    const params = { memoryCost: 4096, timeCost: 3, parallelism: 1 };
    const one = await createPasswordHasher(params, 1);
    const stored = await one.hash('a'.repeat(64));
    const singles: number[] = [];
    for (let i = 0; i < 3; i++) {
      const started = performance.now();
      await one.verify(stored, 'a'.repeat(64));
      singles.push(performance.now() - started);
    }
    const single = singles.sort((a, b) => a - b)[1] ?? 0;

    const four = performance.now();
    const results = await Promise.all(Array.from({ length: 4 }, () => one.verify(stored, 'a'.repeat(64))));
    const parallel = performance.now() - four;
    expect(results).toEqual([true, true, true, true]);
    // One at a time: four take about four times one, never about one.
    expect(parallel).toBeGreaterThan(2 * single);
  });
});
