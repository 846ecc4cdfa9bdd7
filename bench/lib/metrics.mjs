// Foyer's own view of its process, from its Prometheus endpoint (/metrics, decision 0018, with
// METRICS_TOKEN): the event-loop delay, garbage collection and the heap. prom-client's default
// metrics sample the event loop with perf_hooks.monitorEventLoopDelay and start its histogram
// anew at every scrape, so a scrape before a chunk and one after it give that chunk's figures.

/** prom-client samples the event loop with a timer of this period (its default precision). */
export const EVENT_LOOP_SAMPLE_MS = 10;

/** Parses the text exposition format into `name{labels}` → value (labels as written). */
export function parseMetrics(text) {
  const values = new Map();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const space = line.lastIndexOf(' ');
    values.set(line.slice(0, space), Number(line.slice(space + 1)));
  }
  return values;
}

function sumOf(values, name) {
  let total = 0;
  for (const [key, value] of values) if (key === name || key.startsWith(`${name}{`)) total += value;
  return total;
}

/** One scrape of Foyer's metrics, reduced to what the bench reports. */
export async function scrapeFoyer(baseUrl, token) {
  const response = await fetch(`${baseUrl}/metrics`, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(10_000) });
  if (response.status !== 200) throw new Error(`GET /metrics answered ${response.status}`);
  const values = parseMetrics(await response.text());
  const seconds = (name) => (values.has(name) ? values.get(name) * 1000 : null);
  return {
    // The sampling timer's own period is in every sample: what is beyond it is the delay.
    eventLoop: {
      p50Ms: seconds('nodejs_eventloop_lag_p50_seconds'),
      p99Ms: seconds('nodejs_eventloop_lag_p99_seconds'),
      maxMs: seconds('nodejs_eventloop_lag_max_seconds'),
      minMs: seconds('nodejs_eventloop_lag_min_seconds'),
    },
    gcMs: sumOf(values, 'nodejs_gc_duration_seconds_sum') * 1000,
    gcCount: sumOf(values, 'nodejs_gc_duration_seconds_count'),
    heapUsedBytes: values.get('nodejs_heap_size_used_bytes') ?? null,
    heapTotalBytes: values.get('nodejs_heap_size_total_bytes') ?? null,
    externalBytes: values.get('nodejs_external_memory_bytes') ?? null,
    residentBytes: values.get('process_resident_memory_bytes') ?? null,
    heapSpaces: heapSpaces(values),
  };
}

/** Each V8 heap space's size and use in bytes (new, old, code, large_object…): where the heap's total sits. */
function heapSpaces(values) {
  const spaces = {};
  for (const [key, value] of values) {
    const match = /^nodejs_heap_space_size_(total|used)_bytes\{space="([a-z_]+)"\}$/.exec(key);
    if (match === null || value === 0) continue;
    spaces[match[2]] ??= {};
    spaces[match[2]][`${match[1]}Bytes`] = value;
  }
  return spaces;
}

/** The event-loop delay of one chunk beyond the sampling period, in ms (never below 0). */
export function delayBeyondSample(ms) {
  return typeof ms === 'number' && Number.isFinite(ms) ? Math.max(0, ms - EVENT_LOOP_SAMPLE_MS) : null;
}
