import { normalizeEmail } from '@foyer/contract';
import { describe, expect, it } from 'vitest';
import { postJson, signedUp } from '../../../test/account-entry.js';
import { TRANSFER_CHECK_URL, TRANSFER_URL, signInWithGoogle, useGoogleTestApp } from '../../../test/google.js';
import {
  createTestUser,
  dbUnavailable,
  getSession,
  MINUTE,
  newDeviceId,
  sessionCookieName,
  setCookie,
  signIn,
  uniqueEmail,
} from '../../../test/helpers.js';
import { randomToken, sha256Hex } from '../../lib/crypto.js';
import { EXCHANGE_OTTER_URL } from '../../../test/community.js';
import { postReset, requestResetToken } from '../../../test/password.js';
import { unitOfWork } from '../../lib/unit-of-work.js';
import { listAuditEvents } from '../audit/audit.repo.js';
import { issueToken } from '../tokens/tokens.js';

describe.skipIf(dbUnavailable)('transfer tokens for native apps (decision 0019)', () => {
  const t = useGoogleTestApp();

  async function transferToken(): Promise<string> {
    const response = await signInWithGoogle(t, { email: uniqueEmail('app') }, { useTransferToken: true });
    expect(response.statusCode).toBe(200);
    // No session in this browser: the app makes its own with the token.
    expect(setCookie(response, sessionCookieName(t.config))).toBeUndefined();
    const body = response.json<{ wasSignUp: boolean; otter: string; transferToken?: string; wasClient: boolean }>();
    expect(body).toMatchObject({ wasSignUp: true, otter: '', wasClient: true });
    expect(body.transferToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    return body.transferToken ?? '';
  }

  it('turns the token into a session for the app’s device exactly once', async () => {
    const token = await transferToken();
    const row = await t.db.selectFrom('email_tokens').selectAll().where('id', '=', sha256Hex(token)).executeTakeFirst();
    expect(row).toMatchObject({ purpose: 'transfer' });
    expect(JSON.stringify(await t.db.selectFrom('email_tokens').selectAll().execute())).not.toContain(token);

    const deviceId = newDeviceId();
    const exchanged = await postJson(t, TRANSFER_URL, { token, deviceId });
    expect(exchanged.statusCode).toBe(200);
    const { otter } = exchanged.json<{ otter: string }>();
    expect((await getSession(t, otter, deviceId)).statusCode).toBe(200);
    // The session is bound to the app's device: the token alone from elsewhere is not enough.
    expect((await getSession(t, otter, newDeviceId())).statusCode).toBe(401);

    const again = await postJson(t, TRANSFER_URL, { token, deviceId: newDeviceId() });
    expect(again.statusCode).toBe(400);
    expect(again.json()).toEqual({ errorMessage: 'ssoTransferFailed' });
  });

  it('names the account a token signs in to without spending it, and refuses what the exchange refuses (decision 0021)', async () => {
    const email = uniqueEmail('handed');
    const response = await signInWithGoogle(t, { email }, { useTransferToken: true });
    const token = response.json<{ transferToken: string }>().transferToken;
    // A Google sign-in's token belongs to no browser: a page handed it asks before it signs in.
    for (let i = 0; i < 2; i++) expect((await postJson(t, TRANSFER_CHECK_URL, { token })).json()).toEqual({ email, boundToThisBrowser: false });
    expect((await postJson(t, TRANSFER_URL, { token, deviceId: newDeviceId() })).statusCode).toBe(200);
    // Spent.
    expect((await postJson(t, TRANSFER_CHECK_URL, { token })).json()).toEqual({ errorMessage: 'ssoTransferFailed' });
    // Unknown, malformed, of another kind, expired, of a deactivated account.
    expect((await postJson(t, TRANSFER_CHECK_URL, { token: randomToken() })).json()).toEqual({ errorMessage: 'ssoTransferFailed' });
    // A link cut short is an invalid link, in the spec's code for it, not a validation failure.
    expect((await postJson(t, TRANSFER_CHECK_URL, { token: 'x' })).json()).toEqual({ errorMessage: 'ssoTransferFailed' });
    expect((await postJson(t, TRANSFER_URL, { token: token.slice(0, 20), deviceId: newDeviceId() })).json()).toEqual({
      errorMessage: 'ssoTransferFailed',
    });
    expect((await postJson(t, TRANSFER_CHECK_URL, { token: '' })).json()).toMatchObject({ errorMessage: 'invalidRequest' });
    const { token: verification } = await signedUp(t);
    expect((await postJson(t, TRANSFER_CHECK_URL, { token: verification })).json()).toEqual({ errorMessage: 'ssoTransferFailed' });
    const expiring = await transferToken();
    t.clock.advance(2 * MINUTE + 1);
    expect((await postJson(t, TRANSFER_CHECK_URL, { token: expiring })).json()).toEqual({ errorMessage: 'ssoTransferFailed' });
    const deactivated = await transferToken();
    const row = await t.db.selectFrom('email_tokens').select('user_id').where('id', '=', sha256Hex(deactivated)).executeTakeFirstOrThrow();
    await t.db.updateTable('users').set({ deactivated_at: t.clock.now() }).where('id', '=', row.user_id).execute();
    expect((await postJson(t, TRANSFER_CHECK_URL, { token: deactivated })).json()).toEqual({ errorMessage: 'ssoTransferFailed' });
  });

  it('ends the session the browser held before: no token outlives a new sign-in', async () => {
    const earlier = await createTestUser(t);
    const before = await signIn(t.app, earlier);
    const token = await transferToken();
    const deviceId = newDeviceId();
    const exchanged = await postJson(t, TRANSFER_URL, { token, deviceId }, { cookies: { [sessionCookieName(t.config)]: before.otter } });
    expect(exchanged.statusCode).toBe(200);
    expect((await getSession(t, before.otter, before.deviceId)).statusCode).toBe(401);
    expect((await getSession(t, exchanged.json<{ otter: string }>().otter, deviceId)).statusCode).toBe(200);
  });

  it("records the client's authentication period with the token it was issued for", async () => {
    const email = uniqueEmail('period');
    const response = await signInWithGoogle(t, { email }, { useTransferToken: true, clientAuthenticationPeriodId: 'period-123' });
    expect(response.statusCode).toBe(200);
    const issued = await listAuditEvents(t.db, { emailKey: normalizeEmail(email), type: 'transfer.issued' });
    expect(issued.map((event) => JSON.parse(event.detail ?? '{}'))).toEqual([{ via: 'google', clientAuthenticationPeriodId: 'period-123' }]);
  });

  it('lets two exchanges racing with one token make one session', async () => {
    const token = await transferToken();
    const answers = await Promise.all([0, 1, 2].map(() => postJson(t, TRANSFER_URL, { token, deviceId: newDeviceId() })));
    expect(answers.map((answer) => answer.statusCode).sort()).toEqual([200, 400, 400]);
  });

  it('refuses a token past its two minutes, an unknown one, and an emailed token of another kind', async () => {
    const token = await transferToken();
    t.clock.advance(2 * MINUTE + 1);
    expect((await postJson(t, TRANSFER_URL, { token, deviceId: newDeviceId() })).json()).toEqual({ errorMessage: 'ssoTransferFailed' });
    expect((await postJson(t, TRANSFER_URL, { token: randomToken(), deviceId: newDeviceId() })).json()).toEqual({ errorMessage: 'ssoTransferFailed' });
    const { token: verification } = await signedUp(t);
    expect((await postJson(t, TRANSFER_URL, { token: verification, deviceId: newDeviceId() })).json()).toEqual({ errorMessage: 'ssoTransferFailed' });
  });

  it('refuses a token issued before a password reset of its account, by either exchange: the reset ends it', async () => {
    const issuedTo = async () => {
      const account = await createTestUser(t);
      return { account, token: await issueToken(unitOfWork(t.deps), { userId: account.user.id, purpose: 'transfer' }) };
    };
    const exchanges = {
      sso: (token: string) => postJson(t, TRANSFER_URL, { token, deviceId: newDeviceId() }),
      device: (token: string) => postJson(t, EXCHANGE_OTTER_URL, { otterToken: token, deviceId: newDeviceId() }),
    };
    for (const [kind, exchange] of Object.entries(exchanges)) {
      const before = await issuedTo();
      expect((await exchange(before.token)).statusCode, `${kind} without a reset`).toBe(200);

      const { account, token } = await issuedTo();
      expect((await postReset(t, await requestResetToken(t, account.email), 'a brand new password')).statusCode).toBe(200);
      expect((await exchange(token)).json(), kind).toEqual({ errorMessage: kind === 'sso' ? 'ssoTransferFailed' : 'invalidToken' });
      const row = await t.db.selectFrom('email_tokens').select('ended_reason').where('id', '=', sha256Hex(token)).executeTakeFirstOrThrow();
      expect(row.ended_reason).toBe('passwordReset');
    }
  });

  it('refuses the token of an account deactivated since it was issued', async () => {
    const token = await transferToken();
    const row = await t.db.selectFrom('email_tokens').select('user_id').where('id', '=', sha256Hex(token)).executeTakeFirstOrThrow();
    await t.db.updateTable('users').set({ deactivated_at: t.clock.now() }).where('id', '=', row.user_id).execute();
    expect((await postJson(t, TRANSFER_URL, { token, deviceId: newDeviceId() })).json()).toEqual({ errorMessage: 'ssoTransferFailed' });
  });
});
