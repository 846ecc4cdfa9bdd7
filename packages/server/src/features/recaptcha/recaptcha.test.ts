import { normalizeEmail } from '@foyer/contract';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { postSignUp, signUpBody } from '../../../test/account-entry.js';
import { createTestApp, createTestDatabase, dbUnavailable, type TestApp } from '../../../test/helpers.js';
import { GOOD_TOKEN, ReCaptchaStandIn, STAND_IN_SECRET } from '../../../test/recaptcha-stand-in.js';
import type { Database } from '../../db/database.js';
import { findUserByEmailKey } from '../users/users.repo.js';

describe.skipIf(dbUnavailable)('the invisible bot check on sign-up (spec §5)', () => {
  const standIn = new ReCaptchaStandIn();
  let database: Database;
  let t: TestApp | undefined;

  beforeAll(async () => {
    await standIn.start();
    database = await createTestDatabase();
  });
  afterEach(async () => {
    await t?.close();
    t = undefined;
    standIn.mode = 'answer';
  });
  afterAll(async () => {
    await standIn.stop();
    await database.destroy();
  });

  async function appWith(env: Record<string, string> = {}): Promise<TestApp> {
    t = await createTestApp({
      database,
      env: { RECAPTCHA_SITE_KEY: 'site-key', RECAPTCHA_SECRET: STAND_IN_SECRET, RECAPTCHA_VERIFY_URL: standIn.url, ...env },
    });
    return t;
  }

  it('passes a token the service accepts, sending secret, token and client address', async () => {
    const app = await appWith();
    const body = signUpBody({ reCaptchaToken: GOOD_TOKEN });
    const before = standIn.requests.length;
    const response = await postSignUp(app, body);
    expect(response.statusCode).toBe(200);
    const request = standIn.requests[before];
    expect(request?.get('secret')).toBe(STAND_IN_SECRET);
    expect(request?.get('response')).toBe(GOOD_TOKEN);
    expect(request?.get('remoteip')).toBe('127.0.0.1');
    expect(await findUserByEmailKey(app.db, normalizeEmail(body.email))).toBeDefined();
  });

  it('answers reCaptchaFail (400) for a refused token, creating nothing', async () => {
    const app = await appWith();
    const body = signUpBody({ reCaptchaToken: 'forged' });
    const response = await postSignUp(app, body);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ errorMessage: 'reCaptchaFail' });
    expect(await findUserByEmailKey(app.db, normalizeEmail(body.email))).toBeUndefined();
  });

  it('answers reCaptchaFail without a token, without asking the service', async () => {
    const app = await appWith();
    const before = standIn.requests.length;
    const response = await postSignUp(app, signUpBody());
    expect(response.json()).toEqual({ errorMessage: 'reCaptchaFail' });
    expect(standIn.requests.length).toBe(before);
  });

  it('fails closed when the service errs, is unreachable, or the secret is wrong', async () => {
    const app = await appWith();
    standIn.mode = 'error';
    expect((await postSignUp(app, signUpBody({ reCaptchaToken: GOOD_TOKEN }))).json()).toEqual({ errorMessage: 'reCaptchaFail' });
    await app.close();

    const unreachable = await appWith({ RECAPTCHA_VERIFY_URL: 'http://127.0.0.1:9/recaptcha/api/siteverify' });
    expect((await postSignUp(unreachable, signUpBody({ reCaptchaToken: GOOD_TOKEN }))).json()).toEqual({ errorMessage: 'reCaptchaFail' });
    await unreachable.close();

    const wrongSecret = await appWith({ RECAPTCHA_SECRET: 'not-the-secret' });
    expect((await postSignUp(wrongSecret, signUpBody({ reCaptchaToken: GOOD_TOKEN }))).json()).toEqual({ errorMessage: 'reCaptchaFail' });
  });

  it('fails closed with a site key but no secret (outside deployments, where config refuses it)', async () => {
    t = await createTestApp({ database, env: { RECAPTCHA_SITE_KEY: 'site-key', RECAPTCHA_VERIFY_URL: standIn.url } });
    expect((await postSignUp(t, signUpBody({ reCaptchaToken: GOOD_TOKEN }))).json()).toEqual({ errorMessage: 'reCaptchaFail' });
  });

  it('lets the pages load Google’s script and frame only when a site key is set', async () => {
    const app = await appWith();
    const csp = (await app.app.inject({ method: 'GET', url: '/healthz' })).headers['content-security-policy'];
    expect(csp).toContain("script-src 'self' https://www.google.com/recaptcha/ https://www.gstatic.com/recaptcha/");
    expect(csp).toContain("frame-src 'self' https://www.google.com/recaptcha/ https://recaptcha.google.com/recaptcha/");
    await app.close();
    t = await createTestApp({ database });
    const plain = (await t.app.inject({ method: 'GET', url: '/healthz' })).headers['content-security-policy'];
    expect(plain).toContain("script-src 'self';");
    expect(plain).not.toContain('google');
  });

  it('is not used when no site key is configured', async () => {
    t = await createTestApp({ database, env: { RECAPTCHA_SECRET: STAND_IN_SECRET, RECAPTCHA_VERIFY_URL: standIn.url } });
    const before = standIn.requests.length;
    expect((await postSignUp(t, signUpBody({ reCaptchaToken: 'anything' }))).statusCode).toBe(200);
    expect((await postSignUp(t, signUpBody())).statusCode).toBe(200);
    expect(standIn.requests.length).toBe(before);
  });
});
