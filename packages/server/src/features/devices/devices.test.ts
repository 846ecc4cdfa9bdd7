import { API_BASE, CALLS, DEVICE_ID_HEADER } from '@foyer/contract';
import { describe, expect, it } from 'vitest';
import { postJson } from '../../../test/account-entry.js';
import { EXCHANGE_OTTER_URL, postWithToken } from '../../../test/community.js';
import { createTestUser, dbUnavailable, DAY, MINUTE, newDeviceId, signIn, uniqueEmail, useTestApp, type TestApp } from '../../../test/helpers.js';
import { postReset, requestResetToken } from '../../../test/password.js';
import { listAuditEvents } from '../audit/audit.repo.js';
import { CLI_META } from '../audit/audit.service.js';
import { randomToken, sha256Hex } from '../../lib/crypto.js';
import { unitOfWork } from '../../lib/unit-of-work.js';
import { deleteExpiredSessions } from '../sessions/sessions.repo.js';
import { issueToken } from '../tokens/tokens.js';
import { deactivateUser } from '../users/users.service.js';

/** GET account/session as a native client: the token in Authorization, the device id header. */
function sessionWith(t: TestApp, token: string, deviceId: string) {
  return t.app.inject({
    method: 'GET',
    url: API_BASE + CALLS.session.path,
    headers: { authorization: `Bearer ${token}`, [DEVICE_ID_HEADER]: deviceId },
  });
}

async function exchange(t: TestApp, otterToken: string, deviceId: string) {
  return postJson(t, EXCHANGE_OTTER_URL, { otterToken, deviceId, clientAuthenticationPeriodId: 'period-1' });
}

async function deviceTokenFor(t: TestApp, member: { email: string; password: string }) {
  const { otter, deviceId } = await signIn(t.app, member);
  const response = await exchange(t, otter, deviceId);
  expect(response.statusCode).toBe(200);
  return { otter, deviceId, deviceToken: response.json<{ deviceToken: string }>().deviceToken };
}

describe.skipIf(dbUnavailable)('exchange/otterToken: device tokens (decision 0021)', () => {
  const t = useTestApp();

  it('turns a session token into a device token for the same device once, stored only hashed', async () => {
    const member = await createTestUser(t);
    const { otter, deviceId, deviceToken } = await deviceTokenFor(t, member);
    expect(deviceToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const row = await t.db.selectFrom('sessions').selectAll().where('id', '=', sha256Hex(deviceToken)).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ kind: 'device', device_id: deviceId, user_id: member.user.id });
    expect(JSON.stringify(await t.db.selectFrom('sessions').selectAll().execute())).not.toContain(deviceToken);

    expect((await sessionWith(t, deviceToken, deviceId)).statusCode).toBe(200);
    // Bound to its device: the token alone from elsewhere is nothing.
    expect((await sessionWith(t, deviceToken, newDeviceId())).statusCode).toBe(401);
    // The client's authentication period is on the audit trail of the exchange.
    const issued = (await listAuditEvents(t.db, { type: 'device.tokenIssued' })).filter((event) => event.user_id === member.user.id);
    expect(issued.map((event) => JSON.parse(event.detail ?? '{}'))).toEqual([{ from: 'session', clientAuthenticationPeriodId: 'period-1' }]);
    // The one-time token is spent: neither a session any more nor exchangeable again.
    expect((await sessionWith(t, otter, deviceId)).statusCode).toBe(401);
    const again = await exchange(t, otter, deviceId);
    expect(again.statusCode).toBe(400);
    expect(again.json()).toEqual({ errorMessage: 'invalidToken' });
  });

  it('refuses a session token presented by another device, and lets racing exchanges make one token', async () => {
    const member = await createTestUser(t);
    const { otter, deviceId } = await signIn(t.app, member);
    expect((await exchange(t, otter, newDeviceId())).json()).toEqual({ errorMessage: 'invalidToken' });
    const answers = await Promise.all([0, 1, 2].map(() => exchange(t, otter, deviceId)));
    expect(answers.map((answer) => answer.statusCode).sort()).toEqual([200, 400, 400]);
  });

  it('takes a transfer token once, and tells an expired one apart', async () => {
    const member = await createTestUser(t);
    const token = await issueToken(unitOfWork(t.deps), { userId: member.user.id, purpose: 'transfer' });
    const deviceId = newDeviceId();
    const first = await exchange(t, token, deviceId);
    expect(first.statusCode).toBe(200);
    expect((await sessionWith(t, first.json<{ deviceToken: string }>().deviceToken, deviceId)).statusCode).toBe(200);
    expect((await exchange(t, token, deviceId)).json()).toEqual({ errorMessage: 'invalidToken' });

    const late = await issueToken(unitOfWork(t.deps), { userId: member.user.id, purpose: 'transfer' });
    t.clock.advance(2 * MINUTE + 1);
    expect((await exchange(t, late, deviceId)).json()).toEqual({ errorMessage: 'tokenExpired' });
    expect((await exchange(t, randomToken(), deviceId)).json()).toEqual({ errorMessage: 'invalidToken' });
    const reset = await issueToken(unitOfWork(t.deps), { userId: member.user.id, purpose: 'passwordReset' });
    expect((await exchange(t, reset, deviceId)).json()).toEqual({ errorMessage: 'invalidToken' });
  });

  it('outlives a browser session’s idle limit, and is removed by housekeeping only past its own', async () => {
    const member = await createTestUser(t);
    const { deviceId, deviceToken } = await deviceTokenFor(t, member);
    const browser = await signIn(t.app, member);
    t.clock.advance(8 * DAY);
    expect((await sessionWith(t, deviceToken, deviceId)).statusCode).toBe(200);
    expect((await sessionWith(t, browser.otter, browser.deviceId)).statusCode).toBe(401);
    t.clock.advance(89 * DAY);
    await deleteExpiredSessions(t.db, t.clock.now(), t.config.session.idleMs);
    expect((await sessionWith(t, deviceToken, deviceId)).statusCode).toBe(200);
    t.clock.advance(91 * DAY);
    await deleteExpiredSessions(t.db, t.clock.now(), t.config.session.idleMs);
    expect(await t.db.selectFrom('sessions').select('id').where('id', '=', sha256Hex(deviceToken)).executeTakeFirst()).toBeUndefined();
  });

  it('is revoked by signing out with it', async () => {
    const member = await createTestUser(t);
    const { deviceId, deviceToken } = await deviceTokenFor(t, member);
    expect((await postWithToken(t, API_BASE + CALLS.signout.path, {}, deviceToken, deviceId)).statusCode).toBe(200);
    expect((await sessionWith(t, deviceToken, deviceId)).statusCode).toBe(401);
  });

  it('ends with a password reset', async () => {
    const member = await createTestUser(t, { email: uniqueEmail('device') });
    const { deviceId, deviceToken } = await deviceTokenFor(t, member);
    const token = await requestResetToken(t, member.email);
    expect((await postReset(t, token, 'a new password for the device test')).statusCode).toBe(200);
    expect((await sessionWith(t, deviceToken, deviceId)).statusCode).toBe(401);
  });

  it('ends with deactivation, and a deactivated account’s token is not exchanged', async () => {
    const member = await createTestUser(t);
    const { deviceId, deviceToken } = await deviceTokenFor(t, member);
    const pending = await signIn(t.app, member);
    const transfer = await issueToken(unitOfWork(t.deps), { userId: member.user.id, purpose: 'transfer' });
    await deactivateUser(t.deps, member.email, CLI_META);
    expect((await sessionWith(t, deviceToken, deviceId)).statusCode).toBe(401);
    expect(await t.db.selectFrom('sessions').select('id').where('user_id', '=', member.user.id).execute()).toEqual([]);
    expect((await exchange(t, pending.otter, pending.deviceId)).json()).toEqual({ errorMessage: 'invalidToken' });
    expect((await exchange(t, transfer, newDeviceId())).json()).toEqual({ errorMessage: 'invalidToken' });
  });
});
