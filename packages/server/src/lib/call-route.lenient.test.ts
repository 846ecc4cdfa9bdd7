import { API_BASE, CALLS, DEVICE_ID_HEADER } from '@foyer/contract';
import { describe, expect, it } from 'vitest';
import { PASSWORD, SETUP_URL, invitee, postJson, postSignUp, signUpBody } from '../../test/account-entry.js';
import { FORUM_ENV, TERMS_AGREED_URL } from '../../test/community.js';
import { createTestUser, dbUnavailable, newDeviceId, signIn, signInUrl, uniqueEmail, useTestApp, xsrf } from '../../test/helpers.js';
import { FORGOT_URL } from '../../test/password.js';
import { SSO_START_URL } from '../../test/sso.js';
import { sha256Hex } from './crypto.js';

/**
 * Decision 0017: what clients written elsewhere send for a field is taken as the contract means
 * it. A client that reads its optional values from storage sends `null` for those never set, a
 * query parameter's flag as the text `true`, a phone number as a number; spec §7's "empty body"
 * may be no body at all. None of these may cost a person their sign-up or sign-in.
 */
describe.skipIf(dbUnavailable)('bodies as other clients send them', () => {
  const t = useTestApp({ env: { RATE_LIMITS: 'off', ...FORUM_ENV } });

  it('signs up with null for every optional field, a phone number as a number and no plan chosen ("")', async () => {
    const body = signUpBody({
      gaId: null,
      utmMedium: null,
      utmCampaign: null,
      utmSource: null,
      utmTerm: null,
      gclid: null,
      signupSource: null,
      reCaptchaToken: null,
      redirectTo: null,
      hubspotToken: null,
      initialIntent: '',
      phoneNumber: 5551234,
    });
    const response = await postSignUp(t, body);
    expect(response.statusCode, response.body).toBe(200);
    const user = await t.db.selectFrom('users').select('phone_number').where('email_key', '=', body.email).executeTakeFirstOrThrow();
    expect(user.phone_number).toBe('5551234');
  });

  it('still refuses a required field sent as null, naming it, and a flag that is neither true nor false', async () => {
    const response = await postSignUp(t, signUpBody({ email: null }));
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ errorMessage: 'invalidRequest', fields: ['email'] });
    const { token } = await invitee(t);
    const flag = await postJson(t, SETUP_URL, {
      token,
      deviceId: newDeviceId(),
      firstName: 'A',
      lastName: 'B',
      hashPassword: sha256Hex(PASSWORD),
      isMarketingTest: 'yes',
    });
    expect(flag.json()).toEqual({ errorMessage: 'invalidRequest', fields: ['isMarketingTest'] });
  });

  it('takes a stored flag sent as text at setup, and names the fields an invitation still needs', async () => {
    const { token } = await invitee(t);
    const missing = await postJson(t, SETUP_URL, { token, deviceId: newDeviceId(), firstName: 'Ann' });
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toEqual({ errorMessage: 'invalidRequest', fields: ['lastName', 'hashPassword'] });
    const done = await postJson(t, SETUP_URL, {
      token,
      deviceId: newDeviceId(),
      firstName: 'Ann',
      lastName: 'Lee',
      hashPassword: sha256Hex(PASSWORD),
      phoneNumber: null,
      isMarketingTest: 'false',
    });
    expect(done.statusCode, done.body).toBe(200);
  });

  it('asks for a reset and starts SSO with null optional fields', async () => {
    const forgot = await postJson(t, FORGOT_URL, { email: uniqueEmail(), reCaptchaToken: null });
    expect(forgot.statusCode, forgot.body).toBe(200);
    const sso = await postJson(t, SSO_START_URL, { email: uniqueEmail(), clientAuthenticationPeriodId: null, state: null });
    expect(sso.json()).toEqual({ errorMessage: 'ssoNotRecognized' });
  });

  it('signs in with the password digest in upper-case hex, as some platforms write it', async () => {
    const account = await createTestUser(t);
    const response = await postJson(t, signInUrl(), {
      email: account.email,
      hashPassword: sha256Hex(account.password).toUpperCase(),
      deviceId: newDeviceId(),
    });
    expect(response.statusCode, response.body).toBe(200);
  });

  it('records forum terms with no body at all, or an empty JSON body, as spec §7 names it', async () => {
    const account = await createTestUser(t);
    const { otter, deviceId } = await signIn(t.app, account);
    const pair = xsrf();
    const headers = { ...pair.headers, authorization: `Bearer ${otter}`, [DEVICE_ID_HEADER]: deviceId };
    const bare = await t.app.inject({ method: 'POST', url: TERMS_AGREED_URL, cookies: pair.cookies, headers });
    expect(bare.statusCode, bare.body).toBe(200);
    const empty = await t.app.inject({
      method: 'POST',
      url: TERMS_AGREED_URL,
      cookies: pair.cookies,
      headers: { ...headers, 'content-type': 'application/json' },
      payload: '',
    });
    expect(empty.statusCode, empty.body).toBe(200);
    const signOut = await t.app.inject({ method: 'POST', url: API_BASE + CALLS.signout.path, cookies: pair.cookies, headers });
    expect(signOut.statusCode, signOut.body).toBe(200);
  });

  it('refuses JSON sent as text/plain with 415, as any other type', async () => {
    const pair = xsrf();
    const response = await t.app.inject({
      method: 'POST',
      url: signInUrl(),
      cookies: pair.cookies,
      headers: { ...pair.headers, 'content-type': 'text/plain;charset=UTF-8' },
      payload: JSON.stringify({ email: uniqueEmail(), hashPassword: sha256Hex('x'), deviceId: newDeviceId() }),
    });
    expect(response.statusCode).toBe(415);
    expect(response.json()).toEqual({ errorMessage: 'invalidRequest' });
  });

  it('reads a body in UTF-8 as sent (BOM or charset=UTF-8) and refuses what is not UTF-8, storing nothing repaired', async () => {
    const signUp = (payload: Buffer, contentType: string, extra: Record<string, string> = {}) => {
      const pair = xsrf();
      return t.app.inject({
        method: 'POST',
        url: API_BASE + CALLS.signup.path,
        cookies: pair.cookies,
        headers: { ...pair.headers, 'content-type': contentType, ...extra },
        payload,
      });
    };
    const stored = (email: string) => t.db.selectFrom('users').select(['first_name', 'last_name']).where('email_key', '=', email).executeTakeFirst();

    const accepted = signUpBody({ firstName: 'René', lastName: 'Müller' });
    const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify(accepted), 'utf8')]);
    expect((await signUp(bom, 'application/json; charset="UTF-8"')).statusCode).toBe(200);
    expect(await stored(accepted.email)).toEqual({ first_name: 'René', last_name: 'Müller' });

    // The same names in Latin-1 and declared so: not UTF-8, so refused rather than read as `Ren\uFFFD`.
    const latin1 = signUpBody({ firstName: 'René', lastName: 'Müller' });
    const declared = await signUp(Buffer.from(JSON.stringify(latin1), 'latin1'), 'application/json; charset=iso-8859-1');
    expect(declared.statusCode).toBe(415);
    expect(declared.json()).toEqual({ errorMessage: 'invalidRequest' });
    // Undeclared, and a lone surrogate in its CESU-8 bytes (ED A0 80): not UTF-8 either.
    expect((await signUp(Buffer.from(JSON.stringify(latin1), 'latin1'), 'application/json')).json()).toEqual({ errorMessage: 'invalidRequest' });
    const cesu = signUpBody();
    const [before, after] = JSON.stringify({ ...cesu, firstName: 'A\u0000B' }).split('\\u0000') as [string, string];
    const surrogate = await signUp(Buffer.concat([Buffer.from(before), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from(after)]), 'application/json');
    expect(surrogate.statusCode).toBe(400);
    expect(surrogate.json()).toEqual({ errorMessage: 'invalidRequest' });
    for (const email of [latin1.email, cesu.email]) expect(await stored(email)).toBeUndefined();
  });

  it('refuses a body sent with a content coding (415): nothing decodes it here, so nothing reads it as something else', async () => {
    const body = signUpBody();
    for (const coding of ['gzip', 'x-unknown']) {
      const pair = xsrf();
      const response = await t.app.inject({
        method: 'POST',
        url: API_BASE + CALLS.signup.path,
        cookies: pair.cookies,
        headers: { ...pair.headers, 'content-type': 'application/json', 'content-encoding': coding },
        payload: JSON.stringify(body),
      });
      expect(response.statusCode).toBe(415);
      expect(response.json()).toEqual({ errorMessage: 'invalidRequest' });
    }
    expect(await t.db.selectFrom('users').select('id').where('email_key', '=', body.email).executeTakeFirst()).toBeUndefined();
    // `identity` is no coding at all.
    expect((await postSignUp(t, body, { headers: { 'content-encoding': 'identity' } })).statusCode).toBe(200);
  });
});
