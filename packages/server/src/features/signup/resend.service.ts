import { normalizeEmail } from '@foyer/contract';
import type { Deps } from '../../deps.js';
import { inTransaction, unitOfWork } from '../../lib/unit-of-work.js';
import { recordAudit } from '../audit/audit.service.js';
import { checkingReserved, giveBack, reserve, settleFailure } from '../lockout/lockout.service.js';
import { matchingPendingSignup } from '../signin/signin.service.js';
import { findToken } from '../tokens/tokens.js';
import { findUserByEmailKey, findUserById } from '../users/users.repo.js';
import { findSignupAttempt } from './signup.repo.js';
import { mailExistingOwner, queueVerification, type Mailed, type SignUpContext } from './signup.service.js';

/**
 * Decision 0020: `account/resendVerification/byLink { token }`, the 'Send Another Link' of a
 * superseded verification link. Mails a fresh link for the sign-up the presented link belongs to
 * (ending that sign-up's earlier links), to the account's own address, and only while the account
 * waits for verification. The token is the proof: it was mailed to that address, and the mail
 * goes nowhere else, so the holder learns nothing and can reach no other inbox. Answers the same
 * whatever happened (the route answers `{}`).
 */
export async function resendByLink(deps: Deps, token: string, context: SignUpContext): Promise<void> {
  const { meta } = context;
  const row = await findToken(deps.db, token);
  // Invitations are re-sent by an administrator (spec §8's text says so); reset links by forgot password.
  if (row?.purpose !== 'verifyEmail') return;
  await inTransaction(deps, async (uow) => {
    const user = await findUserById(uow.db, row.user_id);
    if (user === undefined || user.deactivated_at !== null || user.email_verified_at !== null) return;
    let signupId: string | undefined;
    if (row.signup_id !== null) {
      const attempt = await findSignupAttempt(uow.db, row.signup_id);
      // Its credential was dropped: a fresh link could activate nothing.
      if (attempt === undefined || attempt.password_hash === null) return;
      signupId = attempt.id;
    }
    await queueVerification(uow, deps, user, signupId, context.locale);
    await recordAudit(uow, {
      type: 'verification.resent',
      meta,
      userId: user.id,
      emailKey: user.email_key,
      detail: { sent: 'verification', via: 'link' },
    });
  });
}

/**
 * Decision 0020: `account/resendVerification/bySignIn { email, hashPassword }`, the resend offered
 * with sign-in's unverifiedAccount. It re-checks the password as sign-in does (the account's own,
 * then the email's newest pending sign-ups) under the same lockout (decision 0003: a wrong
 * password counts as a failed sign-in, so this is no way around the lock), and on a match mails
 * what "Click to resend." would for that sign-up: a fresh verification link while the account
 * waits for verification, the capped sign-up notice otherwise (decision 0014). Whatever happened
 * the route answers `{}`: the person already learnt from sign-in that the email is unverified,
 * and learns nothing more here.
 */
export async function resendBySignIn(deps: Deps, input: { email: string; hashPassword: string }, context: SignUpContext): Promise<void> {
  const { meta } = context;
  const emailKey = normalizeEmail(input.email);
  const { passwords } = deps;
  const threshold = deps.config.lockoutThreshold;
  const uow = unitOfWork(deps);

  const attempt = await reserve(uow, emailKey, threshold);
  if (attempt.refused) {
    // Locked: no password is checked, at the cost of one, as at sign-in.
    await passwords.verifyDummy(input.hashPassword);
    return;
  }
  const user = await findUserByEmailKey(deps.db, emailKey);
  const stored = user?.password_hash ?? null;
  const ownPassword = await checkingReserved(uow, attempt, () =>
    stored === null ? passwords.verifyDummy(input.hashPassword) : passwords.verify(stored, input.hashPassword),
  );
  const signupId = ownPassword
    ? undefined
    : await checkingReserved(uow, attempt, () => matchingPendingSignup(deps, emailKey, input.hashPassword, uow.now));
  if (!ownPassword && signupId === undefined) {
    const userId = user?.id ?? null;
    await recordAudit(uow, { type: 'signin.failure', meta, userId, emailKey, detail: { reason: 'resendWrongPassword', failures: attempt.number } });
    if (await settleFailure(uow, attempt, threshold)) {
      await recordAudit(uow, { type: 'signin.locked', meta, userId, emailKey, detail: { reason: 'threshold', failures: attempt.number } });
    }
    return;
  }
  // A right password is no failure.
  await giveBack(uow, attempt);

  await inTransaction(deps, async (trx) => {
    // Read again inside the transaction: a link may have verified the account meanwhile.
    const account = await findUserByEmailKey(trx.db, emailKey);
    if (account === undefined || account.deactivated_at !== null) return;
    let sent: Mailed;
    if (signupId === undefined) {
      // The account's own password: only an account from before decision 0014 holds one unverified.
      if (account.email_verified_at !== null) return;
      await queueVerification(trx, deps, account, undefined, context.locale);
      sent = 'verification';
    } else {
      const signup = await findSignupAttempt(trx.db, signupId);
      if (signup === undefined) return;
      sent = await mailExistingOwner(trx, deps, account, signup, context.locale);
    }
    await recordAudit(trx, { type: 'verification.resent', meta, userId: account.id, emailKey, detail: { sent, via: 'signIn' } });
  });
}
