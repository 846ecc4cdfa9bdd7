import { describe, expect, it } from 'vitest';
import { VERIFY_URL, getFields, invitee, postJson, signedUp } from '../../../test/account-entry.js';
import { HOUR, dbUnavailable, getSession, newDeviceId, useTestApp } from '../../../test/helpers.js';

describe.skipIf(dbUnavailable)('POST /api/account/verifyEmail', () => {
  const t = useTestApp();

  it('verifies an account that lacks nothing required, like setupAccount without fields', async () => {
    const { email, token } = await signedUp(t, { redirectTo: '/home' });
    const deviceId = newDeviceId();
    const response = await postJson(t, VERIFY_URL, { token, deviceId });
    expect(response.statusCode).toBe(200);
    const body = response.json<{ otter: string; redirectUrl: string }>();
    expect(body.redirectUrl).toBe('/home');
    expect((await getSession(t, body.otter, deviceId)).json()).toMatchObject({ user: { email, emailVerified: true } });
    expect((await postJson(t, VERIFY_URL, { token, deviceId })).json()).toEqual({ errorMessage: 'alreadyVerified' });
  });

  it('answers accountNotSetUp (409) when names or password are missing, and spends nothing', async () => {
    const { token } = await invitee(t);
    const response = await postJson(t, VERIFY_URL, { token, deviceId: newDeviceId() });
    expect(response.statusCode).toBe(409);
    expect(response.json()).toEqual({ errorMessage: 'accountNotSetUp' });
    expect((await getFields(t, token)).statusCode).toBe(200);
  });

  it('answers tokenExpired and invalidToken like setup', async () => {
    const { token } = await signedUp(t);
    t.clock.advance(25 * HOUR);
    expect((await postJson(t, VERIFY_URL, { token, deviceId: newDeviceId() })).json()).toEqual({ errorMessage: 'tokenExpired' });
    expect((await postJson(t, VERIFY_URL, { token: 'B'.repeat(43), deviceId: newDeviceId() })).json()).toEqual({ errorMessage: 'invalidToken' });
  });
});
