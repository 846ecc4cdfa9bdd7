import { API_BASE, CALLS, callUrl } from '@foyer/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson } from '../../../test/account-entry.js';
import { googleRound, exchange, useGoogleTestApp } from '../../../test/google.js';
import { createTestUser, dbUnavailable, newDeviceId, signIn, TEST_DB, uniqueEmail } from '../../../test/helpers.js';
import { OtlpCollector, SPAN_KIND, type ReceivedSpan } from '../../../test/otlp-collector.js';
import { requestResetToken } from '../../../test/password.js';
import { SmtpCapture } from '../../../test/smtp-capture.js';
import { sha256Hex } from '../../lib/crypto.js';
import { startTracing, type Tracing } from './tracing.sdk.js';

/** Every text a span carries: names, attribute values, event attribute values, the resource. */
function textsOf(spans: readonly ReceivedSpan[]): string[] {
  return spans.flatMap((span) => [
    span.name,
    ...Object.values(span.attributes).map(String),
    ...span.events.flatMap((event) => [event.name, ...Object.values(event.attributes).map(String)]),
    ...Object.values(span.resource).map(String),
  ]);
}

/** No span may hold any of these, however cut: the whole secret or its URL-encoded form. */
function expectNoSecrets(spans: readonly ReceivedSpan[], secrets: readonly string[]): void {
  expect(spans.length).toBeGreaterThan(0);
  const texts = textsOf(spans);
  for (const secret of secrets) {
    const forms = [secret, encodeURIComponent(secret)];
    const leaks = texts.filter((text) => forms.some((form) => text.includes(form)));
    expect(leaks, `a span carries ${secret}`).toEqual([]);
  }
}

const server = (route: string) => (span: ReceivedSpan) => span.kind === SPAN_KIND.server && span.attributes['http.route'] === route;

describe.skipIf(dbUnavailable)('traces over OTLP/HTTP (decision 0026)', () => {
  const collector = new OtlpCollector();
  const smtp = new SmtpCapture();
  const env: Record<string, string> = {};
  const t = useGoogleTestApp(env);
  let tracing: Tracing | undefined;

  beforeAll(async () => {
    if (dbUnavailable) return;
    await collector.start();
    await smtp.start();
    Object.assign(env, { OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint, SMTP_URL: smtp.url, MAIL_POLL_MS: '50' });
    tracing = startTracing({
      config: { tracesUrl: `${collector.endpoint}/v1/traces`, serviceName: 'foyer', headers: {} },
      env: 'test',
      scheduledDelayMs: 50,
    });
  });
  afterAll(async () => {
    await tracing?.shutdown();
    await smtp.stop();
    await collector.stop();
  });

  /** The spans of one trace, once everything buffered has been exported. */
  async function traceOf(root: (span: ReceivedSpan) => boolean): Promise<{ root: ReceivedSpan; spans: ReceivedSpan[] }> {
    await tracing?.flush();
    const found = await collector.waitFor(root);
    return { root: found, spans: collector.spans.filter((span) => span.traceId === found.traceId) };
  }

  it('a sign-in: a server span with the route template and status, its statements as children, the resource labels', async () => {
    const user = await createTestUser(t);
    const { otter, deviceId } = await signIn(t.app, user);

    const { root, spans } = await traceOf(server(API_BASE + CALLS.signin.path));
    expect(root).toMatchObject({
      name: `POST ${API_BASE}${CALLS.signin.path}`,
      parentSpanId: undefined,
      attributes: { 'http.request.method': 'POST', 'http.response.status_code': 200 },
      scope: '@foyer/server',
    });
    expect(root.resource).toMatchObject({
      'service.name': 'foyer',
      'service.version': expect.stringMatching(/^\d+\.\d+\.\d+/),
      'deployment.environment.name': 'test',
      'deployment.environment': 'test',
    });

    const statements = spans.filter((span) => span.attributes['db.system.name'] !== undefined);
    expect(statements.length).toBeGreaterThan(0);
    for (const statement of statements) {
      expect(statement.kind).toBe(SPAN_KIND.client);
      expect(statement.attributes['db.system.name']).toBe(TEST_DB === 'sqlite' ? 'sqlite' : 'postgresql');
      expect(statement.parentSpanId).toBe(root.spanId);
    }
    // The statement text keeps its placeholders; the values stay out.
    const lookup = statements.find(
      (span) => /select/i.test(String(span.attributes['db.query.text'])) && /users/.test(String(span.attributes['db.query.text'])),
    );
    expect(lookup?.attributes['db.query.text']).toMatch(TEST_DB === 'sqlite' ? /\?/ : /\$1/);

    expectNoSecrets(spans, [user.email, user.password, sha256Hex(user.password), otter, deviceId]);
  });

  it('mail: the SMTP send is a client span with the server and the mail kind, and no address; token routes stay templates', async () => {
    const user = await createTestUser(t);
    const token = await requestResetToken(t, user.email);
    await smtp.waitFor(user.email);
    const check = await t.app.inject({ method: 'GET', url: `${callUrl('resetPasswordCheck', { token })}?from=${encodeURIComponent(user.email)}` });
    expect(check.statusCode).toBe(200);
    await t.app.inject({ method: 'GET', url: `/reset-password/${token}?from=%2Fhome&email=${encodeURIComponent(user.email)}` });

    const { root: send } = await traceOf((span) => span.name === 'smtp send');
    expect(send).toMatchObject({
      kind: SPAN_KIND.client,
      attributes: { 'network.protocol.name': 'smtp', 'server.address': '127.0.0.1', 'foyer.mail.kind': 'passwordReset' },
    });
    const { root: checked } = await traceOf(server(`${API_BASE}${CALLS.resetPasswordCheck.path}`));
    expect(checked.name).toBe(`GET ${API_BASE}/account/resetPassword/check/:token`);
    const { root: opened } = await traceOf(server('/reset-password/:token'));
    expect(opened.name).toBe('GET /reset-password/:token');

    expectNoSecrets(collector.spans, [user.email, token]);
  });

  it('Google sign-in: discovery and the code exchange are client spans under the requests, without codes or secrets', async () => {
    const email = uniqueEmail('google');
    const round = await googleRound(t, { email, givenName: 'Grace', familyName: 'Hopper' });
    const deviceId = newDeviceId();
    const response = await exchange(t, round, { deviceId });
    expect(response.statusCode).toBe(200);
    const { otter } = response.json<{ otter: string }>();

    const { root, spans } = await traceOf(server(API_BASE + CALLS.googleExchange.path));
    const calls = spans.filter((span) => span.kind === SPAN_KIND.client && span.attributes['http.request.method'] !== undefined);
    expect(calls.length).toBeGreaterThan(0);
    const tokenCall = calls.find((span) => span.attributes['http.request.method'] === 'POST');
    expect(tokenCall).toMatchObject({
      parentSpanId: root.spanId,
      attributes: { 'server.address': '127.0.0.1', 'server.port': Number(new URL(t.provider.issuer).port), 'http.response.status_code': 200 },
    });
    expect(String(tokenCall?.attributes['url.path'])).not.toContain('?');

    const started = await traceOf(server(API_BASE + CALLS.socialAuth.path));
    expect(started.root.attributes['http.response.status_code']).toBe(200);

    expectNoSecrets(collector.spans, [email, round.code, round.state, otter, deviceId, t.provider.clientSecret]);
  });

  it("a caller's traceparent is continued; a bad request's span has its status and no body", async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const email = uniqueEmail('bad');
    const response = await postJson(
      t,
      API_BASE + CALLS.signin.path,
      { email, hashPassword: 'not-a-digest', deviceId: newDeviceId() },
      { headers: { traceparent: `00-${traceId}-00f067aa0ba902b7-01` } },
    );
    expect(response.statusCode).toBe(400);
    const { root } = await traceOf((span) => span.traceId === traceId && span.kind === SPAN_KIND.server);
    expect(root).toMatchObject({ parentSpanId: '00f067aa0ba902b7', attributes: { 'http.response.status_code': 400 } });
    expectNoSecrets(collector.spans, [email, 'not-a-digest']);
  });

  it('a report from the page becomes an exception event of its request span, scrubbed', async () => {
    const email = uniqueEmail('page');
    const token = 'Zk3v9QpLx2Rt7WmYa1Bc4De6Fg';
    const response = await postJson(t, callUrl('clientErrors'), {
      message: `TypeError: failed for ${email} with /ssol/${token}`,
      stack: `TypeError: x\n    at https://auth.example.com/verify-email/${token}?code=${token}:10:5`,
      route: '/ssol/:transferToken',
      release: '2026.11.1',
    });
    expect(response.statusCode).toBe(200);

    const { root } = await traceOf(server(callUrl('clientErrors')));
    const event = root.events.find((candidate) => candidate.name === 'exception');
    expect(event?.attributes).toMatchObject({
      'exception.type': 'ClientError',
      'exception.message': 'TypeError: failed for [email] with /ssol/[token]',
      'foyer.client.route': '/ssol/:transferToken',
      'foyer.client.release': '2026.11.1',
    });
    expect(event?.attributes['exception.stacktrace']).toContain('/verify-email/[token]?[query]');
    expectNoSecrets(collector.spans, [email, token]);
  });
});
