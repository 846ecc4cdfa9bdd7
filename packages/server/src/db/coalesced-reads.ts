/**
 * Reads by key that arrive in the same turn of the event loop go to the database as one statement
 * (decision 0029). Requests whose bytes arrived together are parsed and routed in one poll phase;
 * their keys are collected until the check phase (`setImmediate`), then read together, at most
 * `maxKeys` to a statement. Each caller gets the row of its own key, or undefined; a failed read
 * fails every caller of that statement, each of which answers as a single failed read would.
 *
 * On PostgreSQL this turns N concurrent session checks into one round trip instead of N: one
 * Bind/Execute, one planned index scan and one answer, rather than one of each per request. The
 * read is issued after every request that asked for it arrived, so a change committed before a
 * request came in is always seen.
 */
export class CoalescedReads<Row> {
  private waiting = new Map<string, Array<Waiter<Row>>>();
  private scheduled = false;

  constructor(
    private readonly readMany: (keys: string[]) => Promise<ReadonlyMap<string, Row>>,
    private readonly maxKeys: number,
  ) {}

  read(key: string): Promise<Row | undefined> {
    return new Promise((resolve, reject) => {
      const callers = this.waiting.get(key);
      if (callers === undefined) this.waiting.set(key, [{ resolve, reject }]);
      else callers.push({ resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.scheduled = false;
    const batch = this.waiting;
    this.waiting = new Map();
    const keys = [...batch.keys()];
    for (let start = 0; start < keys.length; start += this.maxKeys) {
      const chunk = keys.slice(start, start + this.maxKeys);
      const settle = (each: (waiter: Waiter<Row>, key: string) => void) => {
        for (const key of chunk) for (const waiter of batch.get(key) ?? []) each(waiter, key);
      };
      // Started from a promise, so a read that throws at once fails its callers like any other
      // failure instead of escaping this timer callback and ending the process.
      Promise.resolve()
        .then(() => this.readMany(chunk))
        .then(
          (rows) => settle((waiter, key) => waiter.resolve(rows.get(key))),
          (error: unknown) => settle((waiter) => waiter.reject(error)),
        );
    }
  }
}

interface Waiter<Row> {
  resolve(row: Row | undefined): void;
  reject(error: unknown): void;
}
