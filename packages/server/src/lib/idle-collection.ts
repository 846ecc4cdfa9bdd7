import { performance, type EventLoopUtilization } from 'node:perf_hooks';
import v8 from 'node:v8';
import vm from 'node:vm';
import type { FastifyBaseLogger } from 'fastify';

/** How often the service looks whether it is idle. */
export const IDLE_CHECK_MS = 2_000;
/** Busy for less than this share of an interval: idle. Timers and a stray request stay below it. */
export const IDLE_UTILIZATION = 0.05;
/** Heap growth since the last collection that is worth giving back. */
export const IDLE_GROWTH_BYTES = 16 * 1024 * 1024;
/**
 * Idle looks in a row before a collection (6 s): a lull between requests is not a quiet service.
 * A full collection discards much of the optimised code (its embedded objects die), so a
 * collection in every short lull makes the next requests run unoptimised and recompile.
 */
export const IDLE_LOOKS = 3;

export interface IdleCollectorParts {
  /** The event loop's busy share since the previous call (0 to 1). */
  utilization(): number;
  /** Bytes of V8 heap in use. */
  heapUsed(): number;
  /** Bytes of V8 heap committed (in use, or held for it). */
  heapCommitted(): number;
  /** One full collection of the heap. */
  collect(): Promise<void>;
}

/**
 * Decision 0029 (memory): V8 collects its old generation when the heap reaches a limit that load
 * raised, and a service that goes quiet after a burst keeps the burst's garbage resident: 10 s
 * after the bench's SAML and Google loads the heap still held about 100 MB of it (SAML responses
 * parse into large documents). V8's own memory reducer waits for a low allocation rate on 8 s
 * timers and, in the bench's runs, often had not started by then.
 *
 * So when the event loop was all but idle for `IDLE_LOOKS` whole intervals in a row and the heap
 * grew by `IDLE_GROWTH_BYTES` since the last collection, the service runs one full collection. Growth of
 * the committed heap counts as well: V8's own collections during a burst can bring the use down
 * while the burst's pages stay committed (a bench run settled with 52 MB in use of 117 MB
 * committed); a compacting collection gives those pages back. A busy
 * service never does (V8 collects as it goes); an idle one does once per burst. It costs the main
 * thread about 0.1 s for a heap of 150 MB, at a moment nobody is waiting.
 */
export class IdleCollector {
  /**
   * The heap in use after the last collection, lowered by V8's own. It starts at none: starting up
   * (modules, migrations, the password floor) leaves garbage too, which the first idle moment
   * gives back.
   */
  private baseline = 0;
  /** The same for the committed heap: after the last collection, lowered by V8's own. */
  private committedBaseline = 0;
  private collecting = false;
  /** Idle looks since the last busy one. */
  private quietLooks = 0;

  constructor(private readonly parts: IdleCollectorParts) {}

  /** One look; resolves when a collection it started has finished. True when it collected. */
  async check(): Promise<boolean> {
    const busy = this.parts.utilization() >= IDLE_UTILIZATION;
    this.quietLooks = busy ? 0 : this.quietLooks + 1;
    const used = this.parts.heapUsed();
    const committed = this.parts.heapCommitted();
    // V8's own collections lower the marks too: growth is counted from the lowest seen.
    this.baseline = Math.min(this.baseline, used);
    this.committedBaseline = Math.min(this.committedBaseline, committed);
    const grew = used - this.baseline >= IDLE_GROWTH_BYTES || committed - this.committedBaseline >= IDLE_GROWTH_BYTES;
    if (this.quietLooks < IDLE_LOOKS || this.collecting || !grew) return false;
    this.collecting = true;
    try {
      await this.parts.collect();
    } finally {
      this.collecting = false;
      // What a collection could not give back is the new mark: it is not tried again until the
      // heap grows further.
      this.baseline = this.parts.heapUsed();
      this.committedBaseline = this.parts.heapCommitted();
    }
    return true;
  }
}

type GcOptions = { type: 'major'; execution: 'async' } | { type: 'major'; flavor: 'last-resort' };
type GcFunction = (options: GcOptions) => Promise<void> | void;

/**
 * Full collections that give memory back, with V8's `gc` function, without `--expose-gc` on the
 * command line (and so without a global `gc` that any dependency could call): the flag is on only
 * while a fresh context is made, which gets it.
 *
 * Where V8 knows the last-resort flavour (Node 24's does), that one collection compacts the heap
 * and returns its pooled pages to the system. Node 20's V8 ignores it; there two ordinary
 * collections do most of it, the second compacting the pages the first left fragmented.
 */
export function fullCollection(heapUsed: () => number): () => Promise<void> {
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc') as GcFunction;
  v8.setFlagsFromString('--no-expose-gc');
  return async () => {
    const before = heapUsed();
    await gc({ type: 'major', flavor: 'last-resort' });
    if (heapUsed() < before - IDLE_GROWTH_BYTES / 2) return;
    await gc({ type: 'major', execution: 'async' });
    await gc({ type: 'major', execution: 'async' });
  };
}

/**
 * Starts looking every `IDLE_CHECK_MS`; the timer never holds the process open. A collection that
 * fails is logged and leaves the service as it was: memory is never a reason to stop serving.
 */
export function startIdleCollection(log: Pick<FastifyBaseLogger, 'debug' | 'warn'>): { stop(): void } {
  let previous: EventLoopUtilization = performance.eventLoopUtilization();
  const heapUsed = () => v8.getHeapStatistics().used_heap_size;
  const collector = new IdleCollector({
    heapCommitted: () => v8.getHeapStatistics().total_heap_size,
    utilization() {
      const now = performance.eventLoopUtilization();
      const share = performance.eventLoopUtilization(now, previous).utilization;
      previous = now;
      return share;
    },
    heapUsed,
    collect: fullCollection(heapUsed),
  });
  const timer = setInterval(() => {
    const before = heapUsed();
    collector.check().then(
      (collected) => {
        if (collected) log.debug({ freedBytes: before - heapUsed() }, 'idle: heap collected');
      },
      (error: unknown) => log.warn({ err: error }, 'idle heap collection failed'),
    );
  }, IDLE_CHECK_MS);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
