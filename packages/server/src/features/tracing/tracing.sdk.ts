import { readFileSync } from 'node:fs';
import { context, propagation, trace } from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import type { Environment } from '@foyer/contract';
import type { TracingConfig } from '../../config.js';
import { traceFetches } from './fetch-spans.js';
import { EXPORT_RETRY, OtlpHttpTraceExporter, exportRetryDelayMs } from './otlp-exporter.js';
import { setTracingActive } from './tracing.js';

/** The server package's version: `service.version` of every span. */
function serviceVersion(): string {
  // From src/features/tracing (tests) or dist/features/tracing (built): the package is three up.
  const text = readFileSync(new URL('../../../package.json', import.meta.url), 'utf8');
  const version: unknown = (JSON.parse(text) as { version?: unknown }).version;
  return typeof version === 'string' ? version : 'unknown';
}

/** The whole retry budget of one batch (spec §9's waits at their longest) plus its attempts. */
function exportBudgetMs(): number {
  let waits = 0;
  for (let retry = 1; retry <= EXPORT_RETRY.retries; retry++) waits += exportRetryDelayMs(retry, () => 1);
  return Math.ceil(waits + (EXPORT_RETRY.retries + 1) * 10_000);
}

export interface Tracing {
  /** Sends what is buffered now (tests; shutdown). */
  flush(): Promise<void>;
  /** Flushes, stops recording and unregisters the provider. */
  shutdown(): Promise<void>;
}

export interface TracingOptions {
  config: TracingConfig;
  env: Environment;
  /** A batch the collector did not take (logged by main.ts once the logger exists). */
  onDropped?: (reason: string, spans: number) => void;
  /** Tests: their own exporter settings (waits) or a shorter delay between batches. */
  exporter?: SpanExporter;
  scheduledDelayMs?: number;
}

/**
 * Starts OpenTelemetry (decision 0026): a tracer provider with the resource attributes, the
 * W3C trace-context propagator, batches exported over OTLP/HTTP with spec §9's retries, and the
 * fetch spans. Imported by main.ts only when OTEL_EXPORTER_OTLP_ENDPOINT is set, so a server
 * without a collector loads none of the SDK.
 */
export function startTracing(options: TracingOptions): Tracing {
  const { config } = options;
  const exporter =
    options.exporter ??
    new OtlpHttpTraceExporter({
      url: config.tracesUrl,
      headers: config.headers,
      ...(options.onDropped === undefined ? {} : { onDropped: options.onDropped }),
    });
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({
      'service.name': config.serviceName,
      'service.version': serviceVersion(),
      // Spec §9's deployment label: the environment (prod, staging, dev, local, test), under the
      // current attribute name and the older one that many backends still group by.
      'deployment.environment.name': options.env,
      'deployment.environment': options.env,
    }),
    spanProcessors: [
      new BatchSpanProcessor(exporter, {
        exportTimeoutMillis: exportBudgetMs(),
        ...(options.scheduledDelayMs === undefined ? {} : { scheduledDelayMillis: options.scheduledDelayMs }),
      }),
    ],
  });
  provider.register();
  const stopFetches = traceFetches();
  setTracingActive(true);
  return {
    flush: () => provider.forceFlush(),
    async shutdown() {
      setTracingActive(false);
      stopFetches();
      await provider.shutdown();
      // The API's globals outlive this provider otherwise (a test file's, or a restart in-process).
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
}
