/** Time as epoch milliseconds. Injected so tests can move time (lock and session expiry). */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };
