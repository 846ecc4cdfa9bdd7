import { SpanKind, SpanStatusCode, context, trace, type Attributes, type Span, type Tracer } from '@opentelemetry/api';

/**
 * The spans Foyer records itself (decision 0026). Only the OpenTelemetry API is imported here: it
 * is a no-op until tracing.sdk.ts registers a provider, which happens only when
 * OTEL_EXPORTER_OTLP_ENDPOINT is set. Every attribute is chosen here and in the hooks that call
 * these helpers, never copied from a request: route templates, statuses, kinds and codes, no
 * addresses, tokens, passwords or query strings.
 */

export const TRACER_NAME = '@foyer/server';

let active = false;

/** Set by tracing.sdk.ts: hooks that would only feed a no-op tracer are not even installed. */
export function setTracingActive(value: boolean): void {
  active = value;
}

export function tracingActive(): boolean {
  return active;
}

export function tracer(): Tracer {
  return trace.getTracer(TRACER_NAME);
}

/** The error's type and, for an AppError, its code: never its message, which may quote input. */
export function errorAttributes(error: unknown): Attributes {
  const type = error instanceof Error ? error.name : typeof error;
  const code = typeof error === 'object' && error !== null && 'code' in error ? (error as { code: unknown }).code : undefined;
  return { 'error.type': typeof code === 'string' && /^[\w.:-]{1,64}$/.test(code) ? code : type };
}

export function markFailed(span: Span, error: unknown): void {
  span.setAttributes(errorAttributes(error));
  span.setStatus({ code: SpanStatusCode.ERROR });
}

/** Runs `work` inside a client span (an outgoing call), ending it with the outcome. */
export async function inClientSpan<T>(name: string, attributes: Attributes, work: () => Promise<T>): Promise<T> {
  if (!active) return work();
  return tracer().startActiveSpan(name, { kind: SpanKind.CLIENT, attributes }, context.active(), async (span) => {
    try {
      return await work();
    } catch (error) {
      markFailed(span, error);
      throw error;
    } finally {
      span.end();
    }
  });
}
