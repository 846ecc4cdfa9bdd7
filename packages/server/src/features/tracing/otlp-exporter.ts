import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';

/**
 * Spec §9: trace export retries 5 times from 1 s, factor 1.5, capped at 5 s, 20 % jitter, on 429,
 * 502, 503 and 504. The exporter of the OpenTelemetry SDK cannot be set to exactly this (it makes
 * 5 attempts in all, and its whole export must fit one timeout), so this one posts itself.
 */
export const EXPORT_RETRY = {
  retries: 5,
  initialMs: 1000,
  multiplier: 1.5,
  maxMs: 5000,
  jitter: 0.2,
  statuses: [429, 502, 503, 504],
} as const;

/** One attempt's deadline: a collector that takes the body and never answers is given up on. */
const ATTEMPT_TIMEOUT_MS = 10_000;

/**
 * The wait before retry `n` (1 to 5): 1000, 1500, 2250, 3375, then 5000 ms (capped), each moved
 * by up to ±20 % at random so that instances which failed together do not retry together.
 */
export function exportRetryDelayMs(retry: number, random: () => number = Math.random): number {
  const base = Math.min(EXPORT_RETRY.initialMs * EXPORT_RETRY.multiplier ** (retry - 1), EXPORT_RETRY.maxMs);
  return base * (1 + EXPORT_RETRY.jitter * (2 * random() - 1));
}

/**
 * A collector's `Retry-After` (seconds or an HTTP date) in milliseconds, at most the cap: the
 * collector knows when it will take data again, but no wait may exceed the spec's 5 s, nor fall
 * below the schedule's (the exporter takes the longer of the two).
 */
export function retryAfterMs(header: string | undefined, now: number = Date.now()): number | undefined {
  if (header === undefined || header.trim() === '') return undefined;
  const seconds = /^\s*\d+\s*$/.test(header) ? Number(header) * 1000 : Date.parse(header) - now;
  return Number.isFinite(seconds) ? Math.min(Math.max(0, seconds), EXPORT_RETRY.maxMs) : undefined;
}

export interface OtlpExporterOptions {
  /** The collector's traces URL: `<OTEL_EXPORTER_OTLP_ENDPOINT>/v1/traces`. */
  url: string;
  /** OTEL_EXPORTER_OTLP_HEADERS, e.g. a collector's API key. */
  headers?: Record<string, string>;
  /** Tests pass their own clock for the waits and the jitter. */
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  /** Called on a batch given up (not accepted, or out of retries); the spans are dropped. */
  onDropped?: (reason: string, spans: number) => void;
}

interface Answer {
  status: number;
  retryAfter?: string;
}

/** OTLP/HTTP with JSON bodies (the OTLP specification's `application/json` encoding). */
export class OtlpHttpTraceExporter implements SpanExporter {
  private readonly pending = new Set<Promise<void>>();
  private stopped = false;

  constructor(private readonly options: OtlpExporterOptions) {}

  export(spans: ReadableSpan[], resultCallback: (result: ExportResult) => void): void {
    if (this.stopped) {
      resultCallback({ code: ExportResultCode.FAILED, error: new Error('the exporter is shut down') });
      return;
    }
    const body = JsonTraceSerializer.serializeRequest(spans);
    if (body === undefined) {
      resultCallback({ code: ExportResultCode.FAILED, error: new Error('the spans could not be encoded') });
      return;
    }
    const sending = this.deliver(body).then(
      (outcome) => {
        if (outcome === 'sent') {
          resultCallback({ code: ExportResultCode.SUCCESS });
        } else {
          this.options.onDropped?.(outcome, spans.length);
          resultCallback({ code: ExportResultCode.FAILED, error: new Error(outcome) });
        }
      },
      (error: unknown) => resultCallback({ code: ExportResultCode.FAILED, error: error instanceof Error ? error : new Error(String(error)) }),
    );
    this.pending.add(sending);
    void sending.finally(() => this.pending.delete(sending));
  }

  /** Posts once, then retries per spec §9 while the collector answers a retryable status. */
  private async deliver(body: Uint8Array): Promise<'sent' | string> {
    const sleep = this.options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
    for (let retry = 0; ; retry++) {
      let answer: Answer;
      try {
        answer = await this.post(body);
      } catch (error) {
        // Spec §9 names statuses only: a collector out of reach loses this batch, not the next.
        return `collector unreachable: ${error instanceof Error ? error.message : String(error)}`;
      }
      if (answer.status >= 200 && answer.status < 300) return 'sent';
      const retryable = (EXPORT_RETRY.statuses as readonly number[]).includes(answer.status);
      if (!retryable || retry >= EXPORT_RETRY.retries) return `collector answered ${answer.status}`;
      // A Retry-After may lengthen the wait, never shorten it: `0` or a date gone by would
      // otherwise spend every retry at once.
      const scheduled = exportRetryDelayMs(retry + 1, this.options.random);
      await sleep(Math.max(retryAfterMs(answer.retryAfter) ?? 0, scheduled));
    }
  }

  private post(body: Uint8Array): Promise<Answer> {
    const url = new URL(this.options.url);
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise((resolve, reject) => {
      const request = send(
        url,
        {
          method: 'POST',
          headers: { ...this.options.headers, 'content-type': 'application/json', 'content-length': body.byteLength },
          timeout: ATTEMPT_TIMEOUT_MS,
        },
        (response: IncomingMessage) => {
          // The answer's body (a partial-success note at most) is not needed; read it to free the socket.
          response.resume();
          response.on('end', () => {
            const header = response.headers['retry-after'];
            resolve({ status: response.statusCode ?? 0, ...(typeof header === 'string' ? { retryAfter: header } : {}) });
          });
          response.on('error', reject);
        },
      );
      request.on('timeout', () => request.destroy(new Error(`no answer within ${ATTEMPT_TIMEOUT_MS} ms`)));
      request.on('error', reject);
      request.end(body);
    });
  }

  async forceFlush(): Promise<void> {
    await Promise.all([...this.pending]);
  }

  async shutdown(): Promise<void> {
    this.stopped = true;
    await this.forceFlush();
  }
}
