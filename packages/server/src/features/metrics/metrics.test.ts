import { API_BASE, CALLS } from '@foyer/contract';
import type { LightMyRequestResponse } from 'fastify';
import { describe, expect, it } from 'vitest';
import { postJson, postSignUp, signUpBody } from '../../../test/account-entry.js';
import { MINUTE, createTestApp, createTestUser, dbUnavailable, postSignIn, uniqueEmail, type TestApp } from '../../../test/helpers.js';
import { METRICS_PATH } from './metrics.plugin.js';

const TOKEN = 'a-metrics-token-of-at-least-32-characters';

/** `null`: no Authorization header at all. */
function scrape(t: TestApp, authorization: string | null = `Bearer ${TOKEN}`): Promise<LightMyRequestResponse> {
  return t.app.inject({ method: 'GET', url: METRICS_PATH, headers: authorization === null ? {} : { authorization } });
}

/** The value of one sample in the Prometheus text format, or undefined when absent. */
function sample(text: string, name: string): number | undefined {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${name} `));
  return line === undefined ? undefined : Number(line.slice(name.length + 1));
}

async function metricsText(t: TestApp): Promise<string> {
  const response = await scrape(t);
  expect(response.statusCode).toBe(200);
  return response.body;
}

describe.skipIf(dbUnavailable)('GET /metrics', () => {
  it('does not exist without METRICS_TOKEN: 404, and no page of the web app', async () => {
    const t = await createTestApp();
    try {
      const response = await scrape(t);
      expect(response.statusCode).toBe(404);
      expect(response.json()).toEqual({ errorMessage: 'notFound' });
    } finally {
      await t.close();
    }
  });

  it('asks for the token: 401 without it or with another, the Prometheus text with it', async () => {
    const t = await createTestApp({ env: { METRICS_TOKEN: TOKEN } });
    try {
      for (const authorization of [null, '', `Bearer ${TOKEN}x`, `Bearer ${TOKEN.slice(0, -1)}`, `Basic ${TOKEN}`, TOKEN]) {
        const refused = await scrape(t, authorization);
        expect(refused.statusCode, String(authorization)).toBe(401);
        expect(refused.json()).toEqual({ errorMessage: 'notSignedIn' });
        expect(refused.headers['www-authenticate']).toBe('Bearer realm="metrics"');
        expect(refused.body).not.toContain('foyer_');
      }
      const response = await scrape(t, `bearer ${TOKEN}`);
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
      expect(response.headers['cache-control']).toBe('no-store');
      // The default process metrics.
      for (const name of [
        'process_cpu_user_seconds_total',
        'process_resident_memory_bytes',
        'nodejs_eventloop_lag_seconds',
        'nodejs_heap_size_used_bytes',
      ]) {
        expect(response.body).toContain(`\n${name} `);
      }
    } finally {
      await t.close();
    }
  });

  it('counts sign-ins by outcome, lockouts, argon2 time and request latency', async () => {
    const t = await createTestApp({ env: { METRICS_TOKEN: TOKEN, LOCKOUT_THRESHOLD: '2' } });
    try {
      const account = await createTestUser(t);
      const unverified = await createTestUser(t, { verified: false });
      const deactivated = await createTestUser(t, { deactivated: true });
      expect((await postSignIn(t.app, account)).statusCode).toBe(200);
      expect((await postSignIn(t.app, unverified)).statusCode).toBe(403);
      expect((await postSignIn(t.app, deactivated)).statusCode).toBe(403);
      const target = { email: uniqueEmail('locked'), password: 'wrong' };
      expect((await postSignIn(t.app, target)).statusCode).toBe(401);
      expect((await postSignIn(t.app, target)).statusCode).toBe(423);
      expect((await postSignIn(t.app, target)).statusCode).toBe(423);

      const text = await metricsText(t);
      expect(sample(text, 'foyer_signins_total{outcome="success"}')).toBe(1);
      expect(sample(text, 'foyer_signins_total{outcome="unverifiedAccount"}')).toBe(1);
      expect(sample(text, 'foyer_signins_total{outcome="deactivatedAccount"}')).toBe(1);
      expect(sample(text, 'foyer_signins_total{outcome="invalidCredentials"}')).toBe(1);
      expect(sample(text, 'foyer_signins_total{outcome="accountLocked"}')).toBe(2);
      expect(sample(text, 'foyer_lockout_locked_emails')).toBe(1);
      // Six sign-ins, each one verification (real or dummy), besides the accounts' creation.
      expect(sample(text, 'foyer_argon2_duration_seconds_count{operation="verify"}')).toBe(3);
      expect(sample(text, 'foyer_argon2_duration_seconds_count{operation="verifyDummy"}')).toBe(3);
      expect(sample(text, 'foyer_argon2_duration_seconds_count{operation="hash"}')).toBe(3);
      const signin = `route="${API_BASE + CALLS.signin.path}"`;
      expect(sample(text, `foyer_http_request_duration_seconds_count{method="POST",${signin},status_code="200"}`)).toBe(1);
      expect(sample(text, `foyer_http_request_duration_seconds_count{method="POST",${signin},status_code="423"}`)).toBe(2);

      // The lock runs out (spec §9: 30 minutes): the gauge is read from the database at scrape.
      t.clock.advance(31 * MINUTE);
      expect(sample(await metricsText(t), 'foyer_lockout_locked_emails')).toBe(0);
    } finally {
      await t.close();
    }
  });

  it('counts rate-limit refusals by route', async () => {
    const t = await createTestApp({ env: { METRICS_TOKEN: TOKEN } });
    try {
      const url = API_BASE + CALLS.forgotPassword.path;
      const email = uniqueEmail('flood');
      let refused = 0;
      for (let attempt = 0; attempt < 50 && refused < 2; attempt++) {
        const response = await postJson(t, url, { email });
        if (response.statusCode === 429) {
          expect(response.json()).toEqual({ errorMessage: 'rateLimitExeeded' });
          refused++;
        }
      }
      expect(refused).toBe(2);
      expect(sample(await metricsText(t), `foyer_rate_limit_refusals_total{route="${url}"}`)).toBe(2);
    } finally {
      await t.close();
    }
  });

  it('reports the outbox backlog and the age of the oldest due mail, and the database going away', async () => {
    // FOYER_ENV=test without SMTP_URL: queued mail stays in the outbox.
    const t = await createTestApp({ env: { METRICS_TOKEN: TOKEN } });
    try {
      let text = await metricsText(t);
      expect(sample(text, 'foyer_mail_outbox_due')).toBe(0);
      expect(sample(text, 'foyer_mail_outbox_oldest_due_age_seconds')).toBe(0);
      expect(sample(text, 'foyer_database_up')).toBe(1);

      expect((await postSignUp(t, signUpBody())).statusCode).toBe(200);
      t.clock.advance(2 * MINUTE);
      expect((await postSignUp(t, signUpBody())).statusCode).toBe(200);
      t.clock.advance(MINUTE);
      text = await metricsText(t);
      expect(sample(text, 'foyer_mail_outbox_due')).toBe(2);
      expect(sample(text, 'foyer_mail_outbox_oldest_due_age_seconds')).toBe(180);

      await t.db.destroy();
      text = await metricsText(t);
      expect(sample(text, 'foyer_database_up')).toBe(0);
      expect(sample(text, 'foyer_mail_outbox_due')).toBeNaN();
    } finally {
      await t.close();
    }
  });
});
