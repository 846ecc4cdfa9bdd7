import { ROUTES, SIGNUP_SOURCES, normalizeEmail, routePath, type Locale } from '@foyer/contract';
import { isUniqueViolation } from '../../db/errors.js';
import { takeTurns } from '../../db/take-turns.js';
import type { Deps } from '../../deps.js';
import { randomId } from '../../lib/crypto.js';
import { AppError } from '../../lib/errors.js';
import { recordAudit, type RequestMeta } from '../audit/audit.service.js';
import { absoluteLink, queueMail } from '../mail/mail.service.js';
import { recipientLocale } from '../password/forgot.service.js';
import { ssoRequiredFor } from '../organizations/organizations.service.js';
import { lifetimeOf } from '../tokens/purposes.js';
import { issueToken } from '../tokens/tokens.js';
import { refuseCommonPassword } from '../../lib/password-floor.js';
import { inTransaction, type UnitOfWork } from '../../lib/unit-of-work.js';
import { findUserByEmailKey, insertUser, newUserRow, type UserRow } from '../users/users.repo.js';
import { mergeAttribution, type AttributionInput } from '../attribution/attribution.repo.js';
import { signupAttemptMail, verifyEmailMail } from './signup.mail.js';
import { countNotices, findSignupAttempt, insertSignupAttempt, setAttemptMailed, type SignupAttemptRow } from './signup.repo.js';

const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;
/** Decision 0014: "someone tried to sign up with your email" at most this often a day. */
const NOTICES_PER_DAY = 3;

export interface SignUpInput extends Omit<AttributionInput, 'redirectTo'> {
  /** As the browser sent it; the service keeps it only if the allow-list accepts it. */
  redirectTo?: string | undefined;
  email: string;
  hashPassword: string;
  firstName: string;
  lastName: string;
  phoneNumber?: string | undefined;
}

export interface SignUpContext {
  meta: RequestMeta;
  /** The visitor's language (from Accept-Language): the account's mail language. */
  locale: Locale;
}

/**
 * Queues a fresh /verify-email/:token link for an unverified account. With a sign-up (decision
 * 0014) the link activates that sign-up's credential and ends only that sign-up's earlier link.
 */
export async function queueVerification(
  uow: UnitOfWork,
  deps: Deps,
  user: UserRow,
  signupId: string | undefined,
  /** The request's language: the mail's when the account has none of its own. */
  requestLocale: Locale,
): Promise<void> {
  const token = await issueToken(uow, { userId: user.id, purpose: 'verifyEmail', ...(signupId === undefined ? {} : { signupId }) });
  await queueMail(uow, deps.config, {
    to: user.email,
    locale: recipientLocale(user, requestLocale),
    template: verifyEmailMail,
    data: {
      link: absoluteLink(deps.config, routePath('verifyEmail', { token })),
      hours: lifetimeOf('verifyEmail') / HOUR_MS,
    },
  });
}

/**
 * Tells the owner of an account that someone tried to sign up with its email, at most
 * NOTICES_PER_DAY times a day: many sign-ups of one email from many addresses must not turn the
 * notice into a mail bomb. Past the cap the sign-up answers the same and mails nothing.
 */
async function queueSignupNotice(uow: UnitOfWork, deps: Deps, user: UserRow, requestLocale: Locale): Promise<boolean> {
  // Sign-ups of one email racing each other count one after another, so the cap holds exactly.
  await takeTurns(uow.db, `signup_notices:${user.email_key}`);
  if ((await countNotices(uow.db, user.email_key, uow.now - DAY_MS)) >= NOTICES_PER_DAY) return false;
  await queueMail(uow, deps.config, {
    to: user.email,
    locale: recipientLocale(user, requestLocale),
    template: signupAttemptMail,
    data: {
      firstName: user.first_name,
      signInUrl: absoluteLink(deps.config, ROUTES.signIn),
      resetUrl: absoluteLink(deps.config, ROUTES.forgotPassword),
    },
  });
  return true;
}

export type Mailed = 'verification' | 'notice' | 'none';

/**
 * The known-email path: the account is not changed. An unverified account gets a verification
 * link for this sign-up's own credential (decision 0014); a deactivated one nothing; anyone else a
 * notice with sign-in and reset links (capped per day).
 */
export async function mailExistingOwner(uow: UnitOfWork, deps: Deps, user: UserRow, attempt: SignupAttemptRow, requestLocale: Locale): Promise<Mailed> {
  let mailed: Mailed;
  if (user.deactivated_at !== null) {
    // Its owner can neither sign in nor reset (forgotPassword mails a deactivated account nothing):
    // a notice pointing there would lead nowhere.
    mailed = 'none';
  } else if (user.email_verified_at === null) {
    // An attempt from before decision 0014 holds no credential: its link verifies the account's own.
    await queueVerification(uow, deps, user, attempt.password_hash === null ? undefined : attempt.id, requestLocale);
    mailed = 'verification';
  } else {
    mailed = (await queueSignupNotice(uow, deps, user, requestLocale)) ? 'notice' : 'none';
  }
  if (mailed !== 'none') await setAttemptMailed(uow.db, attempt.id, mailed);
  return mailed;
}

/**
 * Spec §7 account/signup (decision 0009). Answers an opaque sign-up id, the same way whether the
 * email is new or known, so sign-up cannot tell which emails have accounts (ARCHITECTURE.md):
 * both paths hash the password (the same argon2 cost), write a sign-up attempt and queue one
 * email in one transaction; only the new-email path creates an account (unverified). Refused
 * with ssoRequired (409) when an organisation requires SSO for the email's domain; that says
 * something about the domain, never about an account.
 */
export async function signUp(deps: Deps, input: SignUpInput, context: SignUpContext): Promise<{ signupId: string }> {
  const email = input.email.trim();
  const emailKey = normalizeEmail(email);
  if (await ssoRequiredFor(deps, emailKey)) throw new AppError('ssoRequired');
  refuseCommonPassword(input.hashPassword);

  // Hashed before the transaction, whatever the email: equal cost on both paths.
  const passwordHash = await deps.passwords.hash(input.hashPassword);
  const signupId = randomId();
  const source = input.signupSource === undefined || input.signupSource === '' ? SIGNUP_SOURCES.email : input.signupSource;
  const { meta } = context;
  const phone = input.phoneNumber?.trim() ?? '';
  const firstName = input.firstName.trim();
  const lastName = input.lastName.trim();

  const attempt = () =>
    inTransaction(deps, async (uow) => {
      const { db: trx, now } = uow;
      const existing = await findUserByEmailKey(trx, emailKey);
      // Decision 0014: the credential and names stay with this sign-up, known email or new, until
      // one of its links is clicked; both paths write the same row.
      const pending: SignupAttemptRow = {
        id: signupId,
        email_key: emailKey,
        user_id: null,
        created_at: now,
        password_hash: passwordHash,
        first_name: firstName,
        last_name: lastName,
        phone_number: phone === '' ? null : phone,
        mailed: null,
      };
      if (existing !== undefined) {
        await insertSignupAttempt(trx, pending);
        const sent = await mailExistingOwner(uow, deps, existing, pending, context.locale);
        await recordAudit(uow, { type: 'signup.existing', meta, userId: existing.id, emailKey, detail: { sent } });
        return;
      }
      // The account holds no password until a link verifies the email: which sign-up's password
      // it gets is decided by the link that is clicked, never by who came first.
      const user = newUserRow({ email, emailKey, firstName, lastName, phoneNumber: pending.phone_number, locale: context.locale, now });
      await insertUser(trx, user);
      // redirectTo is kept only if it passes the allow-list (spec §5); setup then sends the browser there.
      const redirectTo = deps.redirects.allowed(input.redirectTo);
      await mergeAttribution(trx, user.id, { ...input, signupSource: source, redirectTo }, now);
      await insertSignupAttempt(trx, { ...pending, user_id: user.id, mailed: 'verification' });
      await queueVerification(uow, deps, user, signupId, context.locale);
      await recordAudit(uow, { type: 'signup', meta, userId: user.id, emailKey, detail: { source } });
    });

  try {
    await attempt();
  } catch (error) {
    // The same new email signed up twice at once: the loser is a known-email sign-up.
    if (!isUniqueViolation(error)) throw error;
    await attempt();
  }
  return { signupId };
}

/**
 * Spec §7 account/resendVerification `{ email, userId }` (userId: the id sign-up answered).
 * Always answers the same. Sends only when the id belongs to a sign-up of that email: an
 * unverified account gets a fresh link (the old one stops working), any other account the
 * sign-up notice again, so both cases cost alike. An unknown id or another email sends nothing.
 */
export async function resendVerification(deps: Deps, input: { email: string; userId: string }, context: SignUpContext): Promise<void> {
  const { meta } = context;
  const emailKey = normalizeEmail(input.email);
  const attempt = await findSignupAttempt(deps.db, input.userId);
  if (attempt === undefined || attempt.email_key !== emailKey) return;
  await inTransaction(deps, async (uow) => {
    const user = await findUserByEmailKey(uow.db, emailKey);
    if (user === undefined) return;
    const sent = await mailExistingOwner(uow, deps, user, attempt, context.locale);
    await recordAudit(uow, { type: 'verification.resent', meta, userId: user.id, emailKey, detail: { sent } });
  });
}
