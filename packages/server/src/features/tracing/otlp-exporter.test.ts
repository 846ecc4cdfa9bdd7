import { request } from 'node:http';
import { trace } from '@opentelemetry/api';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OtlpCollector } from '../../../test/otlp-collector.js';
import { ConfigError, loadConfig } from '../../config.js';
import { EXPORT_RETRY, OtlpHttpTraceExporter, exportRetryDelayMs, retryAfterMs } from './otlp-exporter.js';
import { startTracing } from './tracing.sdk.js';

/** Spans made by a private provider (nothing registered globally), as the SDK hands them over. */
function makeSpans(names: string[]): ReadableSpan[] {
  const memory = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(memory)] });
  for (const name of names)
    provider
      .getTracer('test')
      .startSpan(name, { attributes: { 'foyer.test': name } })
      .end();
  return memory.getFinishedSpans();
}

function exportOnce(exporter: OtlpHttpTraceExporter, spans: ReadableSpan[]): Promise<ExportResult> {
  return new Promise((resolve) => exporter.export(spans, resolve));
}

/** Spec §9's base waits: 1 s, then ×1.5 each time, never more than 5 s. */
const BASE_WAITS = [1000, 1500, 2250, 3375, 5000];

describe('the OTLP export retry policy (spec §9, decision 0026)', () => {
  const collector = new OtlpCollector();
  beforeEach(async () => {
    await collector.start();
  });
  afterEach(async () => {
    await collector.stop();
    collector.refusals.length = 0;
    collector.attempts.length = 0;
    collector.spans.length = 0;
  });

  /** An exporter whose waits are recorded and skipped: the policy without the wall-clock time. */
  function recordingExporter(extra: { onDropped?: (reason: string, spans: number) => void; random?: () => number } = {}) {
    const waits: number[] = [];
    const exporter = new OtlpHttpTraceExporter({
      url: `${collector.endpoint}/v1/traces`,
      headers: { 'x-api-key': 'collector-key' },
      sleep: async (ms) => {
        waits.push(ms);
      },
      ...extra,
    });
    return { exporter, waits };
  }

  it('waits 1 s, 1.5 s, 2.25 s, 3.375 s, then 5 s (capped), each within ±20 %', () => {
    expect(EXPORT_RETRY).toMatchObject({ retries: 5, initialMs: 1000, multiplier: 1.5, maxMs: 5000, jitter: 0.2 });
    BASE_WAITS.forEach((base, index) => {
      expect(exportRetryDelayMs(index + 1, () => 0.5)).toBeCloseTo(base);
      expect(exportRetryDelayMs(index + 1, () => 0)).toBeCloseTo(base * 0.8);
      expect(exportRetryDelayMs(index + 1, () => 1)).toBeCloseTo(base * 1.2);
    });
    for (let i = 0; i < 200; i++) {
      const wait = exportRetryDelayMs(3);
      expect(wait).toBeGreaterThanOrEqual(2250 * 0.8);
      expect(wait).toBeLessThanOrEqual(2250 * 1.2);
    }
  });

  it('a collector answering 503 three times then 200: four attempts, the spans arrive, the waits within the jitter', async () => {
    collector.refusals.push({ status: 503 }, { status: 503 }, { status: 503 });
    const { exporter, waits } = recordingExporter();
    const result = await exportOnce(exporter, makeSpans(['a', 'b']));

    expect(result.code).toBe(ExportResultCode.SUCCESS);
    expect(collector.attempts.map((attempt) => attempt.status)).toEqual([503, 503, 503, 200]);
    expect(collector.spans.map((span) => span.name).sort()).toEqual(['a', 'b']);
    expect(waits).toHaveLength(3);
    waits.forEach((wait, index) => {
      expect(wait).toBeGreaterThanOrEqual((BASE_WAITS[index] ?? 0) * 0.8);
      expect(wait).toBeLessThanOrEqual((BASE_WAITS[index] ?? 0) * 1.2);
    });
    // Every attempt carries OTEL_EXPORTER_OTLP_HEADERS and the JSON encoding.
    expect(collector.attempts.every((attempt) => attempt.headers['x-api-key'] === 'collector-key' && attempt.contentType === 'application/json')).toBe(
      true,
    );
  });

  it('429, 502, 503 and 504 are retried 5 times at most: 6 attempts, then the batch is dropped and said so', async () => {
    for (let i = 0; i < 10; i++) collector.refusals.push({ status: [429, 502, 503, 504][i % 4] ?? 503 });
    const dropped: Array<[string, number]> = [];
    const { exporter, waits } = recordingExporter({ onDropped: (reason, spans) => dropped.push([reason, spans]) });
    const result = await exportOnce(exporter, makeSpans(['lost']));

    expect(result.code).toBe(ExportResultCode.FAILED);
    expect(collector.attempts.map((attempt) => attempt.status)).toEqual([429, 502, 503, 504, 429, 502]);
    expect(waits).toHaveLength(5);
    waits.forEach((wait, index) => {
      expect(wait).toBeGreaterThanOrEqual((BASE_WAITS[index] ?? 0) * 0.8);
      expect(wait).toBeLessThanOrEqual((BASE_WAITS[index] ?? 0) * 1.2);
    });
    expect(dropped).toEqual([['collector answered 502', 1]]);
    expect(collector.spans).toEqual([]);
  });

  it('400, 401, 413 and 500 are not retried: one attempt', async () => {
    for (const status of [400, 401, 413, 500]) {
      collector.attempts.length = 0;
      collector.refusals.push({ status });
      const { exporter, waits } = recordingExporter();
      const result = await exportOnce(exporter, makeSpans(['refused']));
      expect(result.code).toBe(ExportResultCode.FAILED);
      expect(collector.attempts).toHaveLength(1);
      expect(waits).toEqual([]);
    }
  });

  it("a collector's Retry-After is honoured up to the 5 s cap", async () => {
    collector.refusals.push({ status: 429, retryAfter: '2' }, { status: 503, retryAfter: '120' });
    const { exporter, waits } = recordingExporter();
    expect((await exportOnce(exporter, makeSpans(['later']))).code).toBe(ExportResultCode.SUCCESS);
    expect(waits).toEqual([2000, 5000]);
    expect(retryAfterMs('Wed, 21 Oct 2015 07:28:03 GMT', Date.parse('Wed, 21 Oct 2015 07:28:00 GMT'))).toBe(3000);
    expect(retryAfterMs('soon')).toBeUndefined();
  });

  it('a Retry-After of 0 or a date gone by never shortens the schedule (1 s, then 1.5 s)', async () => {
    collector.refusals.push({ status: 429, retryAfter: '0' }, { status: 503, retryAfter: 'Wed, 21 Oct 2015 07:28:00 GMT' });
    const { exporter, waits } = recordingExporter({ random: () => 0.5 });
    expect((await exportOnce(exporter, makeSpans(['eager']))).code).toBe(ExportResultCode.SUCCESS);
    expect(waits).toEqual([1000, 1500]);
  });

  it('with the real clock: the retry after a 503 comes 0.8 to 1.2 s after the first attempt', async () => {
    collector.refusals.push({ status: 503 });
    const exporter = new OtlpHttpTraceExporter({ url: `${collector.endpoint}/v1/traces` });
    expect((await exportOnce(exporter, makeSpans(['timed']))).code).toBe(ExportResultCode.SUCCESS);
    const [first, second] = collector.attempts;
    const gap = (second?.at ?? 0) - (first?.at ?? 0);
    expect(gap).toBeGreaterThanOrEqual(790);
    expect(gap).toBeLessThanOrEqual(1300);
  });

  it('the collector stand-in also takes protobuf bodies, as other exporters send them', async () => {
    const body = ProtobufTraceSerializer.serializeRequest(makeSpans(['protobuf']));
    const status = await new Promise<number>((resolve, reject) => {
      const post = request(`${collector.endpoint}/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/x-protobuf' } }, (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      });
      post.on('error', reject);
      post.end(body);
    });
    expect(status).toBe(200);
    expect(collector.spans).toMatchObject([{ name: 'protobuf', attributes: { 'foyer.test': 'protobuf' }, kind: 1 }]);
  });

  it("the resource names the service and carries the environment as the deployment label (spec §9: 'prod')", async () => {
    const config = loadConfig({
      FOYER_ENV: 'prod',
      PUBLIC_URL: 'https://auth.example.com',
      SECRET_KEY: 'a-test-secret-key-for-the-other-environments',
      OTEL_EXPORTER_OTLP_ENDPOINT: `${collector.endpoint}/`,
      OTEL_SERVICE_NAME: 'foyer-auth',
      OTEL_EXPORTER_OTLP_HEADERS: 'x-api-key=a%2Cb, x-tenant = foyer',
    });
    expect(config.tracing).toEqual({
      tracesUrl: `${collector.endpoint}/v1/traces`,
      serviceName: 'foyer-auth',
      headers: { 'x-api-key': 'a,b', 'x-tenant': 'foyer' },
    });
    if (config.tracing === undefined) throw new Error('OTEL_EXPORTER_OTLP_ENDPOINT gave no tracing configuration');
    const tracing = startTracing({ config: config.tracing, env: config.env, scheduledDelayMs: 10 });
    try {
      trace.getTracer('test').startSpan('labelled').end();
      await tracing.flush();
      const span = await collector.waitFor((candidate) => candidate.name === 'labelled');
      expect(span.resource).toMatchObject({ 'service.name': 'foyer-auth', 'deployment.environment.name': 'prod', 'deployment.environment': 'prod' });
      expect(collector.attempts[0]?.headers).toMatchObject({ 'x-api-key': 'a,b', 'x-tenant': 'foyer' });
    } finally {
      await tracing.shutdown();
    }
    // Shut down, the API is a no-op again: nothing more is recorded or sent.
    trace.getTracer('test').startSpan('after').end();
    expect(trace.getActiveSpan()).toBeUndefined();
  });

  it('no endpoint, no tracing; a malformed header list fails at boot, naming the variable', () => {
    expect(loadConfig({ FOYER_ENV: 'test' }).tracing).toBeUndefined();
    expect(() => loadConfig({ FOYER_ENV: 'test', OTEL_EXPORTER_OTLP_ENDPOINT: 'ftp://collector' })).toThrow(/OTEL_EXPORTER_OTLP_ENDPOINT/);
    expect(() => loadConfig({ FOYER_ENV: 'test', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_EXPORTER_OTLP_HEADERS: 'no-equals' })).toThrow(
      ConfigError,
    );
  });
});
