import { Writable } from 'node:stream';
import Fastify from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { eventually, postSignUp, signUpBody } from '../../../test/account-entry.js';
import { ManualClock, createTestApp, createTestUser, createTestDatabase, dbUnavailable, testConfig, type TestApp } from '../../../test/helpers.js';
import { buildApp } from '../../app.js';
import type { Database } from '../../db/database.js';
import { DEV_MAILBOX_PATH, DevMailboxResponse } from './dev-mailbox.routes.js';
import { devMailboxTransport } from './mail.transports.js';

const HTTPS = { PUBLIC_URL: 'https://auth.foyer.example', ARGON2_MEMORY_KIB: '19456', ARGON2_TIME: '2' };

describe.skipIf(dbUnavailable)('the dev mailbox', () => {
  let database: Database;
  let t: TestApp | undefined;

  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });
  afterAll(async () => database.destroy());

  const local = async () => (t = await createTestApp({ database, env: { FOYER_ENV: 'local', MAIL_POLL_MS: '50' } }));
  const mailbox = async (app: TestApp, query = '') =>
    DevMailboxResponse.parse((await app.app.inject({ method: 'GET', url: `${DEV_MAILBOX_PATH}.json${query}` })).json());

  it('receives the mail of a local server without SMTP_URL, newest first, with its links', async () => {
    const app = await local();
    const first = signUpBody({ firstName: '<script>alert(1)</script>' });
    const second = signUpBody();
    await postSignUp(app, first);
    await eventually(async () => (await mailbox(app, `?to=${encodeURIComponent(first.email)}`)).messages.length === 1);
    app.clock.advance(1000);
    await postSignUp(app, second);
    await eventually(async () => (await mailbox(app, `?to=${encodeURIComponent(second.email)}`)).messages.length === 1);

    const { messages } = await mailbox(app);
    const ours = messages.filter((message) => [first.email, second.email].includes(message.to));
    expect(ours.map((message) => message.to)).toEqual([second.email, first.email]);
    const [message] = ours;
    expect(message).toMatchObject({
      kind: 'verifyEmail',
      subject: 'Verify your email address for Foyer',
      deliveredAt: new Date(app.clock.now()).toISOString(),
    });
    expect(message?.links).toHaveLength(1);
    expect(message?.links[0]).toMatch(new RegExp(`^${app.config.publicUrl}/verify-email/[A-Za-z0-9_-]{43}$`));
    expect(message?.text).toContain(message?.links[0] ?? 'missing');
    expect(message?.html).toContain('<html lang="en">');
    // The search ignores letter case.
    expect((await mailbox(app, `?to=${encodeURIComponent(first.email.toUpperCase())}`)).messages.map((m) => m.to)).toEqual([first.email]);
    const outbox = await app.db.selectFrom('mail_outbox').select(['sent_at', 'attempts']).where('to_address', '=', second.email).executeTakeFirstOrThrow();
    expect(outbox).toEqual({ sent_at: app.clock.now(), attempts: 1 });
  });

  it('answers only requests that name this machine, so a page that rebinds its own name to 127.0.0.1 reads nothing (DNS rebinding)', async () => {
    const app = await local();
    const asked = (host: string) => app.app.inject({ method: 'GET', url: `${DEV_MAILBOX_PATH}.json`, headers: { host } });
    for (const host of ['localhost:8080', 'app.localhost:8080', '127.0.0.1:8080', '[::1]:8080', new URL(app.config.publicUrl).host]) {
      expect([host, (await asked(host)).statusCode]).toEqual([host, 200]);
    }
    for (const host of ['rebind.evil.example:8080', 'evil.example', '127.0.0.1.evil.example', 'localhost.evil.example:8080']) {
      const refused = await asked(host);
      expect([host, refused.statusCode]).toEqual([host, 404]);
      expect(refused.json()).toEqual({ errorMessage: 'notFound' });
    }
  });

  it('shows a readable page under the site CSP, with everything escaped and the links clickable', async () => {
    const app = await local();
    // An account's own name goes into the notice of a sign-up with its email.
    const owner = await createTestUser(app);
    await app.db.updateTable('users').set({ first_name: '<script>alert(1)</script>' }).where('id', '=', owner.user.id).execute();
    const body = signUpBody({ email: owner.email });
    await postSignUp(app, body);
    await eventually(async () => (await mailbox(app, `?to=${encodeURIComponent(body.email)}`)).messages.length === 1);
    const [message] = (await mailbox(app, `?to=${encodeURIComponent(body.email)}`)).messages;

    const page = await app.app.inject({ method: 'GET', url: DEV_MAILBOX_PATH });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect(page.body).not.toContain('<script>alert(1)');
    expect(page.body).toContain('&#60;script&#62;alert(1)&#60;/script&#62;');
    expect(page.body).toContain(`<a href="${message?.links[0] ?? 'missing'}">`);
    expect(page.body).toContain(`<link rel="stylesheet" href="${DEV_MAILBOX_PATH}.css">`);
    expect(page.body).not.toMatch(/<style|style="/);

    const css = await app.app.inject({ method: 'GET', url: `${DEV_MAILBOX_PATH}.css` });
    expect(css.headers['content-type']).toBe('text/css; charset=utf-8');

    const html = await app.app.inject({ method: 'GET', url: `${DEV_MAILBOX_PATH}/${message?.id ?? ''}` });
    expect(html.body).toBe(message?.html);
    expect(html.headers['content-security-policy']).toBe("default-src 'none'; style-src 'unsafe-inline'; img-src data:; sandbox");
    expect((await app.app.inject({ method: 'GET', url: `${DEV_MAILBOX_PATH}/nope` })).statusCode).toBe(404);
  });

  it.each([
    ['prod', HTTPS],
    ['staging', HTTPS],
    ['dev', HTTPS],
    ['test', {}],
  ])('does not exist in %s (404)', async (env, extra) => {
    t = await createTestApp({ database, env: { FOYER_ENV: env, ...extra } });
    for (const path of [DEV_MAILBOX_PATH, `${DEV_MAILBOX_PATH}.json`, `${DEV_MAILBOX_PATH}.css`]) {
      const response = await t.app.inject({ method: 'GET', url: path });
      expect(response.statusCode, `${env} ${path}`).toBe(404);
      expect(response.json()).toEqual({ errorMessage: 'notFound' });
    }
  });

  it.each(['127.0.0.1', '127.0.0.53', '::1', 'localhost'])('is served locally on the loopback bind HOST=%s', async (host) => {
    t = await createTestApp({ database, env: { FOYER_ENV: 'local', HOST: host } });
    expect((await t.app.inject({ method: 'GET', url: `${DEV_MAILBOX_PATH}.json` })).statusCode).toBe(200);
    expect(t.app.mail.transport?.name).toBe('devMailbox');
  });

  // It shows live sign-up and reset links: never to the network, whatever the environment.
  it.each(['0.0.0.0', '::', '192.168.1.20'])('does not exist locally on HOST=%s (404), and boot warns', async (host) => {
    const app = await buildApp({ config: testConfig({ FOYER_ENV: 'local', HOST: host }), db: database.db, clock: new ManualClock() });
    const warn = vi.spyOn(app.log, 'warn');
    try {
      await app.ready();
      for (const path of [DEV_MAILBOX_PATH, `${DEV_MAILBOX_PATH}.json`, `${DEV_MAILBOX_PATH}.css`]) {
        expect((await app.inject({ method: 'GET', url: path })).statusCode, path).toBe(404);
      }
      expect(warn).toHaveBeenCalledWith(expect.stringContaining(`HOST=${host} is not a loopback address: the dev mailbox (/dev/mailbox) is not served`));
      // Mail waits in the outbox (no links in the log either) until SMTP_URL is set.
      expect(app.mail.transport).toBeUndefined();
    } finally {
      await app.close();
    }
  });

  it('answers 400 invalidRequest, not a database error, for a control character in the search or a message id', async () => {
    const app = await local();
    for (const url of [`${DEV_MAILBOX_PATH}.json?to=a%00b`, `${DEV_MAILBOX_PATH}?to=%01`, `${DEV_MAILBOX_PATH}/%00`, `${DEV_MAILBOX_PATH}/x%7F`]) {
      const response = await app.app.inject({ method: 'GET', url });
      expect(response.statusCode, url).toBe(400);
      expect(response.json(), url).toMatchObject({ errorMessage: 'invalidRequest' });
    }
  });

  it('does not exist locally when SMTP_URL is set: mail goes to SMTP then', async () => {
    t = await createTestApp({ database, env: { FOYER_ENV: 'local', SMTP_URL: 'smtp://127.0.0.1:9' } });
    expect((await t.app.inject({ method: 'GET', url: `${DEV_MAILBOX_PATH}.json` })).statusCode).toBe(404);
    expect(t.app.mail.transport?.name).toBe('smtp');
  });

  it('logs each delivered link (local only), so a developer can follow it from the console', async () => {
    const lines: string[] = [];
    const logger = Fastify({
      logger: { level: 'info', stream: new Writable({ write: (chunk: Buffer, _encoding, done) => (lines.push(chunk.toString()), done()) }) },
    });
    const transport = devMailboxTransport({ db: database.db, clock: new ManualClock(), log: logger.log });
    await transport.send({
      id: 'log-test',
      kind: 'verifyEmail',
      to: 'a@example.com',
      locale: 'en',
      subject: 'S',
      text: 'Go to http://localhost:8080/verify-email/tok123 now',
      html: '<p>x</p>',
    });
    await logger.close();
    const entry = JSON.parse(lines.find((line) => line.includes('dev mailbox')) ?? '{}') as { links?: string[]; to?: string };
    expect(entry.links).toEqual(['http://localhost:8080/verify-email/tok123']);
    expect(entry.to).toBe('a@example.com');
  });
});
