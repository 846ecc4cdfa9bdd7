/** Median of repeated timings: robust against the odd slow call on a shared machine. */
export function median(values: readonly number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
}

/** The value a quarter of the way up: the work itself, where anything else only ever adds to it. */
export function lowerQuartile(values: readonly number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 4)] ?? 0;
}

/** Milliseconds an async call takes. */
export async function timedMs(run: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await run();
  return performance.now() - start;
}

/**
 * Milliseconds of the process's CPU (user and system, all threads) an async call takes: the work
 * it does, which other processes' load on the machine does not stretch as it stretches wall time.
 */
export async function cpuMs(run: () => Promise<unknown>): Promise<number> {
  const before = process.cpuUsage();
  await run();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}
