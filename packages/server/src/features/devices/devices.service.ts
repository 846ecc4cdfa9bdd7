import type { Deps } from '../../deps.js';
import { sha256Hex } from '../../lib/crypto.js';
import { AppError } from '../../lib/errors.js';
import { inTransaction } from '../../lib/unit-of-work.js';
import { recordAudit, withClientPeriod, type RequestMeta } from '../audit/audit.service.js';
import { bindingHolds, type PresentedBinding } from '../sso/sso.binding.js';
import { deleteSession, findSessionWithUser } from '../sessions/sessions.repo.js';
import { createSession } from '../sessions/sessions.service.js';
import { TRANSFER_PURPOSES } from '../tokens/purposes.js';
import { findToken, spendToken, usableToken } from '../tokens/tokens.js';
import { findUserById } from '../users/users.repo.js';

const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/**
 * Spec §7 `exchange/otterToken` `{ otterToken, deviceId }` → `{ deviceToken }` (decision 0021): a
 * one-time sign-in token becomes a long-lived device token bound to the same device, and the
 * one-time token is spent in the same transaction, so it works exactly once. Two kinds are taken:
 * a transfer token (decision 0019: 2 minutes, single use) and a browser session's token presented
 * by the device it belongs to (the session ends: its token has been handed on). Unknown, spent,
 * of another device or for a deactivated account: `invalidToken`; an expired transfer token:
 * `tokenExpired`.
 */
export async function exchangeOtterToken(
  deps: Deps,
  input: { otterToken: string; deviceId: string; clientAuthenticationPeriodId?: string | undefined },
  meta: RequestMeta,
  /** The SSO binding the request presents (sso.binding.ts). */
  presentedBinding: PresentedBinding = { hash: undefined, fromOwnPage: false },
): Promise<string> {
  const { otterToken, deviceId } = input;
  if (!TOKEN_PATTERN.test(otterToken)) throw new AppError('invalidToken');

  const transfer = await findToken(deps.db, otterToken);
  if (transfer !== undefined) {
    const row = usableToken(transfer, TRANSFER_PURPOSES, deps.clock.now());
    // A company sign-in's token works only in the browser that started the sign-in (decision 0022).
    if (!bindingHolds(row, presentedBinding)) throw new AppError('invalidToken');
    const user = await findUserById(deps.db, row.user_id);
    if (user === undefined || user.deactivated_at !== null) throw new AppError('invalidToken');
    return inTransaction(deps, async (uow) => {
      // One conditional UPDATE: of two clients racing with the same token one wins (ASVS V15.4.2).
      if (!(await spendToken(uow, row.id))) throw new AppError('invalidToken');
      const { token } = await createSession(uow, deps.config, { userId: user.id, deviceId, kind: 'device' });
      await recordAudit(uow, {
        type: 'device.tokenIssued',
        meta,
        userId: user.id,
        emailKey: user.email_key,
        detail: withClientPeriod({ from: 'transfer' }, input.clientAuthenticationPeriodId),
      });
      return token;
    });
  }

  const session = await findSessionWithUser(deps.db, sha256Hex(otterToken));
  const now = deps.clock.now();
  if (
    session === undefined ||
    session.kind !== 'browser' ||
    session.device_id !== deviceId ||
    session.deactivated_at !== null ||
    now >= session.expires_at ||
    now >= session.last_seen_at + deps.config.session.idleMs
  ) {
    throw new AppError('invalidToken');
  }
  return inTransaction(deps, async (uow) => {
    // Deleting the row is the spend: of two racing exchanges only one sees it go.
    if ((await deleteSession(uow.db, session.id)) === undefined) throw new AppError('invalidToken');
    const { token } = await createSession(uow, deps.config, { userId: session.user_id, deviceId, kind: 'device' });
    await recordAudit(uow, {
      type: 'device.tokenIssued',
      meta,
      userId: session.user_id,
      detail: withClientPeriod({ from: 'session' }, input.clientAuthenticationPeriodId),
    });
    return token;
  });
}
