import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { mailsTo } from '../../../test/account-entry.js';
import { createTestApp, createTestDatabase, createTestUser, dbUnavailable, uniqueEmail, type TestApp } from '../../../test/helpers.js';
import { postForgot } from '../../../test/password.js';
import { GOOD_TOKEN, ReCaptchaStandIn, STAND_IN_SECRET } from '../../../test/recaptcha-stand-in.js';
import type { Database } from '../../db/database.js';

/** Spec §5: forgot-password uses the invisible bot check when a site key is configured. */
describe.skipIf(dbUnavailable)('the invisible bot check on forgot-password', () => {
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

  async function appWithSiteKey(): Promise<TestApp> {
    t = await createTestApp({
      database,
      env: { RECAPTCHA_SITE_KEY: 'site-key', RECAPTCHA_SECRET: STAND_IN_SECRET, RECAPTCHA_VERIFY_URL: standIn.url },
    });
    return t;
  }

  it('queues the mail when the service accepts the token, sending secret, token and client address', async () => {
    const app = await appWithSiteKey();
    const { email } = await createTestUser(app);
    const before = standIn.requests.length;
    const response = await postForgot(app, { email, reCaptchaToken: GOOD_TOKEN });
    expect(response.statusCode).toBe(200);
    expect(standIn.requests[before]?.get('secret')).toBe(STAND_IN_SECRET);
    expect(standIn.requests[before]?.get('response')).toBe(GOOD_TOKEN);
    expect(standIn.requests[before]?.get('remoteip')).toBe('127.0.0.1');
    expect(await mailsTo(app, email)).toHaveLength(1);
  });

  it('answers reCaptchaFail (400) for a refused token, a missing one, or an unreachable service, sending nothing', async () => {
    const app = await appWithSiteKey();
    const { email } = await createTestUser(app);
    for (const body of [{ email, reCaptchaToken: 'forged' }, { email }]) {
      const response = await postForgot(app, body);
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual({ errorMessage: 'reCaptchaFail' });
    }
    standIn.mode = 'error';
    expect((await postForgot(app, { email, reCaptchaToken: GOOD_TOKEN })).json()).toEqual({ errorMessage: 'reCaptchaFail' });
    expect(await mailsTo(app, email)).toEqual([]);
  });

  it('answers an unknown email the same way: the check comes before any lookup', async () => {
    const app = await appWithSiteKey();
    const refused = await postForgot(app, { email: uniqueEmail('nobody'), reCaptchaToken: 'forged' });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toEqual({ errorMessage: 'reCaptchaFail' });
    expect((await postForgot(app, { email: uniqueEmail('nobody'), reCaptchaToken: GOOD_TOKEN })).statusCode).toBe(200);
  });

  it('is not needed without a site key (local development)', async () => {
    t = await createTestApp({ database });
    const { email } = await createTestUser(t);
    expect((await postForgot(t, { email })).statusCode).toBe(200);
    expect(await mailsTo(t, email)).toHaveLength(1);
  });
});
