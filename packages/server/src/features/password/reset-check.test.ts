import { callUrl } from '@foyer/contract';
import { describe, expect, it } from 'vitest';
import { signedUp } from '../../../test/account-entry.js';
import { HOUR, createTestUser, dbUnavailable, useTestApp, type TestApp } from '../../../test/helpers.js';
import { postReset, requestResetToken } from '../../../test/password.js';
import { sha256Hex } from '../../lib/crypto.js';

/** GET account/resetPassword/check/{token}, as the reset screen asks when it opens (decision 0020). */
function check(t: TestApp, token: string) {
  return t.app.inject({ method: 'GET', url: callUrl('resetPasswordCheck', { token }) });
}

describe.skipIf(dbUnavailable)('GET /api/account/resetPassword/check/{token}', () => {
  const t = useTestApp();

  it("answers the account's email as it was typed, and spends nothing however often it is asked", async () => {
    const account = await createTestUser(t, { email: `Reset.Check.${Date.now()}@Example.com` });
    const token = await requestResetToken(t, account.email);
    for (let i = 0; i < 3; i++) {
      const response = await check(t, token);
      expect(response.statusCode).toBe(200);
      expect(response.headers['cache-control']).toBe('no-store');
      expect(response.json()).toEqual({ email: account.email });
    }
    const row = await t.db.selectFrom('email_tokens').select(['used_at', 'ended_reason']).where('id', '=', sha256Hex(token)).executeTakeFirstOrThrow();
    expect(row).toEqual({ used_at: null, ended_reason: null });
    expect((await postReset(t, token, 'a brand new password')).statusCode).toBe(200);
  });

  it('answers invalidToken for an unknown, used, superseded or setup link, and for a deactivated account', async () => {
    const expectInvalid = async (token: string) => {
      const response = await check(t, token);
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual({ errorMessage: 'invalidToken' });
    };
    await expectInvalid('A'.repeat(43));
    const account = await createTestUser(t);
    const used = await requestResetToken(t, account.email);
    await postReset(t, used, 'a brand new password');
    await expectInvalid(used);
    const superseded = await requestResetToken(t, account.email);
    await requestResetToken(t, account.email);
    await expectInvalid(superseded);
    await expectInvalid((await signedUp(t)).token);
    const deactivated = await createTestUser(t);
    const token = await requestResetToken(t, deactivated.email);
    await t.db.updateTable('users').set({ deactivated_at: t.clock.now() }).where('id', '=', deactivated.user.id).execute();
    await expectInvalid(token);
  });

  it('answers tokenExpired (410) after the hour, and invalidToken for a link cut short or mangled (spec §8)', async () => {
    const account = await createTestUser(t);
    const token = await requestResetToken(t, account.email);
    t.clock.advance(HOUR);
    const expired = await check(t, token);
    expect(expired.statusCode).toBe(410);
    expect(expired.json()).toEqual({ errorMessage: 'tokenExpired' });
    for (const mangled of ['not*a*token', token.slice(0, 12), `${token}%C3%A9`]) {
      const malformed = await check(t, mangled);
      expect(malformed.statusCode, mangled).toBe(400);
      expect(malformed.json(), mangled).toEqual({ errorMessage: 'invalidToken' });
    }
  });
});
