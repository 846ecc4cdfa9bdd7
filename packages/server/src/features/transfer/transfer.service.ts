import type { Deps } from '../../deps.js';
import { AppError } from '../../lib/errors.js';
import { inTransaction, unitOfWork } from '../../lib/unit-of-work.js';
import { recordAudit, type RequestMeta } from '../audit/audit.service.js';
import { createSession, type StartedSession } from '../sessions/sessions.service.js';
import { DESKTOP_HANDOFF, bindingHolds, type PresentedBinding } from '../sso/sso.binding.js';
import { TRANSFER_PURPOSES } from '../tokens/purposes.js';
import { findToken, spendToken } from '../tokens/tokens.js';
import { findUserById } from '../users/users.repo.js';

/**
 * Spec §7 `account/exchangeSSOTransferToken` `{ token, deviceId }` → `{ otter }` (decision 0019):
 * the one-time token a Google (or SSO) sign-in gave a native app becomes a session on the app's
 * own device, exactly once. Unknown, spent, expired or of another kind, or for a deactivated
 * account, or a company sign-in's token presented without the binding of the browser that started
 * it: `ssoTransferFailed` (spec §8, 'There was an error signing in with SSO.'), one code for all,
 * so the answer tells nothing about which.
 */
export async function exchangeTransferToken(
  deps: Deps,
  input: { token: string; deviceId: string },
  meta: RequestMeta,
  /** The SSO binding the request presents (sso.binding.ts). */
  presentedBinding: PresentedBinding,
): Promise<StartedSession> {
  const row = await findToken(deps.db, input.token);
  if (row === undefined || !(TRANSFER_PURPOSES as readonly string[]).includes(row.purpose)) throw new AppError('ssoTransferFailed');
  // A company sign-in's token works only in the browser that started the sign-in (decision 0022).
  if (!bindingHolds(row, presentedBinding)) {
    await recordAudit(unitOfWork(deps), { type: 'transfer.refused', meta, userId: row.user_id, detail: { reason: 'otherBrowser' } });
    throw new AppError('ssoTransferFailed');
  }
  const user = await findUserById(deps.db, row.user_id);
  if (user === undefined || user.deactivated_at !== null) throw new AppError('ssoTransferFailed');
  return inTransaction(deps, async (uow) => {
    // One conditional UPDATE: of two apps racing with the same token one wins (ASVS V15.4.2).
    if (!(await spendToken(uow, row.id))) throw new AppError('ssoTransferFailed');
    const session = await createSession(uow, deps.config, { userId: user.id, deviceId: input.deviceId });
    await recordAudit(uow, { type: 'transfer.exchanged', meta, userId: user.id, emailKey: user.email_key });
    return session;
  });
}

/**
 * `account/exchangeSSOTransferToken/check` (decision 0021): the account a transfer token would sign
 * in to, and whether it came from a sign-in this browser started (an SSO sign-in bound to it),
 * without spending it. A page that is handed a token it did not ask for (the device hand-off, an
 * `/ssol/` address someone sent) shows whose account it is and exchanges it only when the person
 * says so: otherwise whoever mints a token for their own account could sign someone else's browser
 * in to it (login CSRF, ASVS V10.1.2). Refused exactly as the exchange would refuse it.
 */
export async function checkTransferToken(
  deps: Deps,
  input: { token: string },
  presented: PresentedBinding,
): Promise<{ email: string; boundToThisBrowser: boolean }> {
  const row = await findToken(deps.db, input.token);
  const usable =
    row !== undefined &&
    (TRANSFER_PURPOSES as readonly string[]).includes(row.purpose) &&
    row.used_at === null &&
    row.expires_at > deps.clock.now() &&
    bindingHolds(row, presented);
  if (!usable) throw new AppError('ssoTransferFailed');
  const user = await findUserById(deps.db, row.user_id);
  if (user === undefined || user.deactivated_at !== null) throw new AppError('ssoTransferFailed');
  return { email: user.email, boundToThisBrowser: row.binding_hash !== null && row.binding_hash !== DESKTOP_HANDOFF };
}
