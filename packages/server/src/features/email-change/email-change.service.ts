import { ROUTES, normalizeEmail, routePath, type Locale } from '@foyer/contract';
import type { Deps } from '../../deps.js';
import { isUniqueViolation } from '../../db/errors.js';
import { AppError } from '../../lib/errors.js';
import { inTransaction, unitOfWork, type UnitOfWork } from '../../lib/unit-of-work.js';
import { recordAudit, type RequestMeta } from '../audit/audit.service.js';
import { checkingReserved, clearLockout, reserve, settleFailure } from '../lockout/lockout.service.js';
import { absoluteLink, queueMail } from '../mail/mail.service.js';
import { recipientLocale } from '../password/forgot.service.js';
import { deleteSessionsOfUser } from '../sessions/sessions.repo.js';
import { createSession, type StartedSession } from '../sessions/sessions.service.js';
import { missingFields } from '../setup/setup.service.js';
import { EMAIL_CHANGE_PURPOSES, RESET_PURPOSES, SETUP_PURPOSES, TRANSFER_PURPOSES, lifetimeOf } from '../tokens/purposes.js';
import { findToken, issueToken, spendOpenTokens, spendPresentedToken, supersedeOpenTokens, usableToken } from '../tokens/tokens.js';
import { findUserByEmailKey, findUserById, lockAccount, type UserRow } from '../users/users.repo.js';
import { emailChangeMail, emailChangeNoticeMail } from './email-change.mail.js';

const HOUR_MS = 60 * 60 * 1000;

/**
 * The current password, asked again before the address that recovers the account changes (ASVS
 * V7.5.1). A wrong one counts towards the email's sign-in lockout exactly as at sign-in (decision
 * 0003: reserve, then settle), so a stolen session cannot be used to guess the password.
 */
async function confirmPassword(deps: Deps, user: UserRow, hashPassword: string, meta: RequestMeta): Promise<void> {
  const { passwords } = deps;
  const threshold = deps.config.lockoutThreshold;
  const uow = unitOfWork(deps);
  const emailKey = user.email_key;
  const attempt = await reserve(uow, emailKey, threshold);
  if (attempt.refused) {
    await passwords.verifyDummy(hashPassword);
    await recordAudit(uow, { type: 'signin.locked', meta, userId: user.id, emailKey, detail: { reason: 'emailChange', failures: attempt.number } });
    throw new AppError('accountLocked');
  }
  const stored = user.password_hash;
  const matched = await checkingReserved(uow, attempt, () =>
    stored === null ? passwords.verifyDummy(hashPassword) : passwords.verify(stored, hashPassword),
  );
  if (!matched) {
    await recordAudit(uow, {
      type: 'signin.failure',
      meta,
      userId: user.id,
      emailKey,
      detail: { reason: 'emailChangeWrongPassword', failures: attempt.number },
    });
    if (await settleFailure(uow, attempt, threshold)) {
      await recordAudit(uow, { type: 'signin.locked', meta, userId: user.id, emailKey, detail: { reason: 'threshold', failures: attempt.number } });
      throw new AppError('accountLocked');
    }
    throw new AppError('invalidCredentials');
  }
  await clearLockout(uow, emailKey);
}

/**
 * Mails the link to the new address and the notice to the current one, inside the caller's
 * transaction. An address that already has an account gets no link (it could never be used:
 * verifying refuses it), but the notice goes out all the same and the earlier link ends as a new
 * one would end it, so neither the current mailbox nor a link the requester holds for another
 * address can tell a taken address from a free one. Returns whether a link was sent.
 */
export async function issueEmailChange(uow: UnitOfWork, deps: Pick<Deps, 'config'>, user: UserRow, newEmail: string, locale: Locale): Promise<boolean> {
  const taken = (await findUserByEmailKey(uow.db, normalizeEmail(newEmail))) !== undefined;
  const mailLocale = recipientLocale(user, locale);
  if (taken) await supersedeOpenTokens(uow.db, { userId: user.id, purpose: 'emailChange', now: uow.now });
  else {
    const token = await issueToken(uow, { userId: user.id, purpose: 'emailChange', newEmail });
    await queueMail(uow, deps.config, {
      to: newEmail,
      locale: mailLocale,
      template: emailChangeMail,
      data: {
        firstName: user.first_name,
        link: absoluteLink(deps.config, routePath('verifyNewEmail', { token })),
        hours: lifetimeOf('emailChange') / HOUR_MS,
      },
    });
  }
  await queueMail(uow, deps.config, {
    to: user.email,
    locale: mailLocale,
    template: emailChangeNoticeMail,
    data: { firstName: user.first_name, newEmail, resetUrl: absoluteLink(deps.config, ROUTES.forgotPassword) },
  });
  return !taken;
}

export interface ChangeEmailInput {
  userId: string;
  newEmail: string;
  hashPassword: string;
}

/**
 * Decision 0023 `account/changeEmail`: the signed-in account asks to move to a new address. The
 * answer is the same whether or not the new address has an account (closes an
 * account-enumeration channel: the taken case is refused only when the link is used, without
 * saying whose it is). The current address stays in force until the link is used.
 */
export async function requestEmailChange(deps: Deps, input: ChangeEmailInput, context: { meta: RequestMeta; locale: Locale }): Promise<void> {
  const user = await findUserById(deps.db, input.userId);
  if (user === undefined || user.deactivated_at !== null) throw new AppError('notSignedIn');
  await confirmPassword(deps, user, input.hashPassword, context.meta);
  // The account's own address: nothing to change and nothing to mail.
  if (normalizeEmail(input.newEmail) === user.email_key) return;
  await inTransaction(deps, async (uow) => {
    // Read again holding the account's turn: a reset, an address change or a deactivation that
    // committed while the password was checked ended this request's grounds (and its session).
    const current = await lockAccount(uow.db, user.id);
    if (current === undefined || current.deactivated_at !== null || current.email_key !== user.email_key) throw new AppError('notSignedIn');
    if (current.password_hash !== user.password_hash) throw new AppError('invalidCredentials');
    const linkSent = await issueEmailChange(uow, deps, user, input.newEmail.trim(), context.locale);
    await recordAudit(uow, { type: 'email.changeRequested', meta: context.meta, userId: user.id, emailKey: user.email_key, detail: { linkSent } });
  });
}

/**
 * `account/verifyNewEmail/check` (decision 0023): the address an email-change link moves its
 * account to, and whether the browser asking is signed in to another account (`signedInAs`: the
 * account of the session it presented). Refuses what `verifyNewEmail` refuses, spends nothing and
 * writes nothing. The page sends such a link at once only when this browser holds no other
 * account's session: otherwise a link the sender made for their own account would move this
 * browser into it unasked (login CSRF).
 */
export async function checkNewEmailLink(
  deps: Deps,
  input: { token: string },
  signedInAs: string | undefined,
): Promise<{ email: string; signedInElsewhere: boolean }> {
  const row = usableToken(await findToken(deps.db, input.token), EMAIL_CHANGE_PURPOSES, deps.clock.now());
  const user = await findUserById(deps.db, row.user_id);
  const newEmail = row.new_email;
  if (user === undefined || user.deactivated_at !== null || newEmail === null) throw new AppError('invalidToken');
  if (missingFields(user).some((field) => field !== 'phoneNumber')) throw new AppError('accountNotSetUp');
  const holder = await findUserByEmailKey(deps.db, normalizeEmail(newEmail));
  if (holder !== undefined && holder.id !== user.id) throw new AppError('invalidToken');
  return { email: newEmail, signedInElsewhere: signedInAs !== undefined && signedInAs !== user.id };
}

export interface VerifiedEmailChange {
  session: StartedSession;
  redirectUrl?: string;
}

/**
 * Spec §7 verify new email (decision 0023). The link must be an open email-change link of an
 * active account that lacks nothing required (else accountNotSetUp, spec §8). An address taken by
 * another account since the link was sent answers invalidToken like any dead link: the holder of
 * the link learns nothing about whose it is. Then one transaction: spends the token, moves the
 * account to the new address (verified by this very link), ends every session of the account and
 * its other emailed links (they went to the old address), and starts a session on this device.
 */
export async function verifyNewEmail(
  deps: Deps,
  input: { token: string; deviceId: string; next?: string | undefined },
  meta: RequestMeta,
): Promise<VerifiedEmailChange> {
  const row = usableToken(await findToken(deps.db, input.token), EMAIL_CHANGE_PURPOSES, deps.clock.now());
  const user = await findUserById(deps.db, row.user_id);
  const newEmail = row.new_email;
  if (user === undefined || user.deactivated_at !== null || newEmail === null) throw new AppError('invalidToken');
  if (missingFields(user).some((field) => field !== 'phoneNumber')) throw new AppError('accountNotSetUp');

  const newKey = normalizeEmail(newEmail);
  const refuseTaken = async (): Promise<never> => {
    await recordAudit(unitOfWork(deps), { type: 'email.changeRefused', meta, userId: user.id, emailKey: user.email_key, detail: { reason: 'taken' } });
    throw new AppError('invalidToken');
  };
  const holder = await findUserByEmailKey(deps.db, newKey);
  if (holder !== undefined && holder.id !== user.id) return refuseTaken();

  let session: StartedSession;
  try {
    session = await inTransaction(deps, async (uow) => {
      const { db: trx, now } = uow;
      await spendPresentedToken(uow, input.token, row, EMAIL_CHANGE_PURPOSES);
      await trx
        .updateTable('users')
        .set((eb) => ({ email: newEmail, email_key: newKey, email_verified_at: eb.fn.coalesce('email_verified_at', eb.val(now)), updated_at: now }))
        .where('id', '=', user.id)
        .execute();
      const sessionsEnded = await deleteSessionsOfUser(trx, user.id);
      await spendOpenTokens(uow, user.id, [...SETUP_PURPOSES, ...RESET_PURPOSES, ...EMAIL_CHANGE_PURPOSES, ...TRANSFER_PURPOSES]);
      await recordAudit(uow, { type: 'email.changed', meta, userId: user.id, emailKey: newKey, detail: { sessionsEnded } });
      return createSession(uow, deps.config, { userId: user.id, deviceId: input.deviceId });
    });
  } catch (error) {
    // Another account took the address between the check and the update (the unique key held).
    if (isUniqueViolation(error)) return refuseTaken();
    throw error;
  }
  const redirectUrl = deps.redirects.allowed(input.next);
  return redirectUrl === undefined ? { session } : { session, redirectUrl };
}
