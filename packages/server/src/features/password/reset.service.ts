import { ROUTES, type Locale } from '@foyer/contract';
import type { Deps } from '../../deps.js';
import { AppError } from '../../lib/errors.js';
import { refuseCommonPassword } from '../../lib/password-floor.js';
import { inTransaction } from '../../lib/unit-of-work.js';
import { recordAudit, type RequestMeta } from '../audit/audit.service.js';
import { absoluteLink, queueMail } from '../mail/mail.service.js';
import { deleteSessionsOfUser } from '../sessions/sessions.repo.js';
import { EMAIL_CHANGE_PURPOSES, RESET_PURPOSES, SETUP_PURPOSES, TRANSFER_PURPOSES } from '../tokens/purposes.js';
import { findToken, spendOpenTokens, spendPresentedToken, usableToken, type TokenRow } from '../tokens/tokens.js';
import { clearLockout } from '../lockout/lockout.service.js';
import { dropPendingCredentials } from '../signup/signup.repo.js';
import { ssoRequiredFor } from '../organizations/organizations.service.js';
import { findUserById, type UserRow } from '../users/users.repo.js';
import { recipientLocale } from './forgot.service.js';
import { passwordChangedMail } from './password.mail.js';
import { pushPasswordHistory, recentPasswordHashes, setResetPassword } from './password.repo.js';

export interface ResetContext {
  meta: RequestMeta;
  /** The language of the request: the changed-password mail's when the account has none. */
  locale: Locale;
}

/**
 * recentPassword (spec §8) when the new password is the current one or one of the last five
 * (decision 0010). Each stored hash has its own salt, so each is an argon2 verification: up to
 * six, run side by side on the thread pool.
 */
async function refuseRecentPassword(deps: Deps, user: UserRow, hashPassword: string): Promise<void> {
  const hashes = [...(user.password_hash === null ? [] : [user.password_hash]), ...(await recentPasswordHashes(deps.db, user.id))];
  const matches = await Promise.all(hashes.map((hash) => deps.passwords.verify(hash, hashPassword)));
  if (matches.includes(true)) throw new AppError('recentPassword');
}

/** The account of a usable reset link, or the spec's code (§8: invalidToken, tokenExpired). */
async function linkOwner(deps: Pick<Deps, 'db' | 'clock'>, token: string): Promise<{ token: TokenRow; user: UserRow }> {
  const row = usableToken(await findToken(deps.db, token), RESET_PURPOSES, deps.clock.now());
  const user = await findUserById(deps.db, row.user_id);
  // A deactivated account gets nothing from a link sent before it was deactivated.
  if (user === undefined || user.deactivated_at !== null) throw new AppError('invalidToken');
  // Decision 0022: where an organisation requires SSO no password is set; a link sent before the
  // requirement is dead, as setup links are.
  if (await ssoRequiredFor(deps, user.email_key)) throw new AppError('invalidToken');
  return { token: row, user };
}

/**
 * Decision 0020: `GET account/resetPassword/check/{token}`. Whether a reset link still works and
 * whose account it is, so the screen says so before anyone chooses a password and password
 * managers file the new one under the right entry. Only reads: opening a link spends nothing.
 */
export async function checkResetLink(deps: Pick<Deps, 'db' | 'clock'>, token: string): Promise<{ email: string }> {
  const { user } = await linkOwner(deps, token);
  return { email: user.email };
}

/**
 * Spec §7 account/resetPassword. The token is checked (unknown, used or superseded →
 * invalidToken; past its hour → tokenExpired) and the new password compared with recent ones
 * before anything changes, so a refused password leaves the link usable. Then one transaction:
 * spends the token (one conditional UPDATE: of two racing requests one wins; ASVS V15.4.2), stores
 * the new hash and keeps the old one in the history, marks the email verified, ends every session
 * of the account (ASVS V7.4.3; the reset screen is not signed in, so there is no session of the
 * person's own to keep), clears the sign-in lock of the email, ends the account's other emailed
 * links (each of them could sign someone in), queues the password-changed mail and writes the
 * audit trail. The answer starts no session: the person signs in with the new password.
 */
export async function resetPassword(deps: Deps, input: { token: string; hashPassword: string }, context: ResetContext): Promise<void> {
  const { token, user } = await linkOwner(deps, input.token);
  refuseCommonPassword(input.hashPassword);
  await refuseRecentPassword(deps, user, input.hashPassword);
  const passwordHash = await deps.passwords.hash(input.hashPassword);

  await inTransaction(deps, async (uow) => {
    const { db: trx, now } = uow;
    await spendPresentedToken(uow, input.token, token, RESET_PURPOSES);
    await setResetPassword(trx, user.id, passwordHash, now);
    if (user.password_hash !== null) await pushPasswordHistory(trx, { userId: user.id, passwordHash: user.password_hash, now });
    const sessionsEnded = await deleteSessionsOfUser(trx, user.id);
    const lockCleared = await clearLockout(uow, user.email_key);
    // A pending email change ends too (decision 0023): its notice sends the owner here. So does an
    // unspent transfer token (decision 0019): it would start a session the reset never saw.
    await spendOpenTokens(uow, user.id, [...SETUP_PURPOSES, ...RESET_PURPOSES, ...EMAIL_CHANGE_PURPOSES, ...TRANSFER_PURPOSES], 'passwordReset');
    // The owner proved the mailbox: no other sign-up's password may still answer for the email.
    await dropPendingCredentials(trx, user.email_key);
    await queueMail(uow, deps.config, {
      to: user.email,
      locale: recipientLocale(user, context.locale),
      template: passwordChangedMail,
      data: {
        firstName: user.first_name,
        signInUrl: absoluteLink(deps.config, ROUTES.signIn),
        resetUrl: absoluteLink(deps.config, ROUTES.forgotPassword),
      },
    });

    const { meta } = context;
    if (user.email_verified_at === null) {
      await recordAudit(uow, { type: 'email.verified', meta, userId: user.id, emailKey: user.email_key, detail: { via: 'passwordReset' } });
    }
    await recordAudit(uow, { type: 'password.reset', meta, userId: user.id, emailKey: user.email_key, detail: { sessionsEnded, lockCleared } });
  });
}
