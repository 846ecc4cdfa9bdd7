/**
 * At most `limit` tasks at once; the rest wait their turn in order, without blocking the event
 * loop. Used to keep argon2 hashing to one task per core (decision 0011).
 */
export class Semaphore {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly limit: number) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.active++;
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      // The slot passes straight to the next waiter, so `active` never drops below the load.
      if (next === undefined) this.active--;
      else next();
    }
  }

  /** Tasks running now and tasks waiting (for metrics and tests). */
  get load(): { active: number; waiting: number } {
    return { active: this.active, waiting: this.waiting.length };
  }
}
