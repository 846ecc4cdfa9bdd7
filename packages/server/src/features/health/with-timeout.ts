/** A dependency that hangs counts as down: a monitor or a probe must get an answer, not a timeout. */
export const CHECK_TIMEOUT_MS = 2000;

/** `promise`, or a rejection once `ms` passed without it settling. */
export function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
