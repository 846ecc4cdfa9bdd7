import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeTraceRequest } from './otlp-protobuf.js';

/** An OTLP attribute value as JSON carries it (int64 values arrive as strings or numbers). */
export interface OtlpAnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: number | string;
  doubleValue?: number;
  arrayValue?: { values?: OtlpAnyValue[] };
  kvlistValue?: { values?: OtlpKeyValue[] };
  bytesValue?: string;
}
export interface OtlpKeyValue {
  key: string;
  value?: OtlpAnyValue;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind?: number;
  attributes?: OtlpKeyValue[];
  events?: Array<{ name: string; attributes?: OtlpKeyValue[] }>;
  status?: { code?: number; message?: string };
}
export interface OtlpTraceRequest {
  resourceSpans?: Array<{
    resource?: { attributes?: OtlpKeyValue[] };
    scopeSpans?: Array<{ scope?: { name?: string }; spans?: OtlpSpan[] }>;
  }>;
}

export type Attributes = Record<string, string | number | boolean>;

/** One span as the collector received it, its attributes flattened to plain values. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  /** OTLP's numbers: 1 internal, 2 server, 3 client. */
  kind: number;
  attributes: Attributes;
  events: Array<{ name: string; attributes: Attributes }>;
  status: { code: number; message?: string };
  resource: Attributes;
  scope: string | undefined;
}

export const SPAN_KIND = { internal: 1, server: 2, client: 3 } as const;

function plain(value: OtlpAnyValue | undefined): string | number | boolean {
  if (value === undefined) return '';
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  return JSON.stringify(value);
}

function flatten(attributes: OtlpKeyValue[] | undefined): Attributes {
  return Object.fromEntries((attributes ?? []).map((entry) => [entry.key, plain(entry.value)]));
}

/** A status the collector answers instead of taking the data, and its `Retry-After`. */
export interface CollectorAnswer {
  status: number;
  retryAfter?: string;
}

/**
 * A stand-in for an OpenTelemetry collector's OTLP/HTTP receiver on 127.0.0.1: `POST /v1/traces`
 * with a JSON or protobuf body, decoded and kept. It can be told to refuse the next requests
 * (503, 429, 400…) to play an overloaded or a rejecting collector.
 */
export class OtlpCollector {
  readonly spans: ReceivedSpan[] = [];
  /** Every POST, accepted or not, with the moment it arrived (ms since the collector started). */
  readonly attempts: Array<{ at: number; contentType: string; status: number; headers: IncomingMessage['headers'] }> = [];
  /** Answers for the next requests, in order; then 200. */
  readonly refusals: CollectorAnswer[] = [];
  private server: Server | undefined;
  private startedAt = 0;

  /** The base address, as OTEL_EXPORTER_OTLP_ENDPOINT takes it. */
  get endpoint(): string {
    const address = this.server?.address() as AddressInfo | null | undefined;
    if (address == null) throw new Error('the collector is not listening');
    return `http://127.0.0.1:${address.port}`;
  }

  async start(): Promise<void> {
    this.startedAt = performance.now();
    this.server = createServer((request, response) => void this.handle(request, response));
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (server === undefined) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Waits until a span matching `test` has arrived. */
  async waitFor(test: (span: ReceivedSpan) => boolean, timeoutMs = 5000): Promise<ReceivedSpan> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.spans.find(test);
      if (found !== undefined) return found;
      if (Date.now() > deadline) throw new Error(`no such span arrived; got: ${this.spans.map((span) => span.name).join(', ')}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const contentType = (request.headers['content-type'] ?? '').split(';')[0]?.trim() ?? '';
    const answer = (status: number, retryAfter?: string) => {
      this.attempts.push({ at: performance.now() - this.startedAt, contentType, status, headers: request.headers });
      response.writeHead(status, { 'content-type': 'application/json', ...(retryAfter === undefined ? {} : { 'retry-after': retryAfter }) });
      response.end('{}');
    };
    if (request.method !== 'POST' || request.url !== '/v1/traces') return answer(404);
    const refusal = this.refusals.shift();
    if (refusal !== undefined) return answer(refusal.status, refusal.retryAfter);
    let decoded: OtlpTraceRequest;
    try {
      if (contentType === 'application/json') decoded = JSON.parse(body.toString('utf8')) as OtlpTraceRequest;
      else if (contentType === 'application/x-protobuf') decoded = decodeTraceRequest(body);
      else return answer(415);
    } catch {
      return answer(400);
    }
    this.keep(decoded);
    answer(200);
  }

  private keep(decoded: OtlpTraceRequest): void {
    for (const resourceSpans of decoded.resourceSpans ?? []) {
      const resource = flatten(resourceSpans.resource?.attributes);
      for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
        for (const span of scopeSpans.spans ?? []) {
          this.spans.push({
            traceId: span.traceId,
            spanId: span.spanId,
            parentSpanId: span.parentSpanId === undefined || span.parentSpanId === '' ? undefined : span.parentSpanId,
            name: span.name,
            kind: span.kind ?? 0,
            attributes: flatten(span.attributes),
            events: (span.events ?? []).map((event) => ({ name: event.name, attributes: flatten(event.attributes) })),
            status: { code: span.status?.code ?? 0, ...(span.status?.message === undefined ? {} : { message: span.status.message }) },
            resource,
            scope: scopeSpans.scope?.name,
          });
        }
      }
    }
  }
}
