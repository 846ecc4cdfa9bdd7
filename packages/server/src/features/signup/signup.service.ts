import { ROUTES, SIGNUP_SOURCES, normalizeEmail, routePath, type Locale } from '@foyer/contract';
import type { Transaction } from 'kysely';
import type { DB } from '../../db/schema.js';
import { isUniqueViolation } from '../../db/errors.js';
import type { Deps } from '../../deps.js';
import { randomId } from '../../lib/crypto.js';
import { AppError } from '../../lib/errors.js';
import { recordAudit, type RequestMeta } from '../audit/audit.service.js';
import { absoluteLink, queueMail } from '../mail/mail.service.js';
import { mailLocale } from '../mail/mail.template.js';
import { ssoRequiredFor } from '../organizations/organizations.service.js';
import { SETUP_TOKENS, issueToken } from '../setup/tokens.js';
import { findUserByEmailKey, insertUser, type UserRow } from '../users/users.repo.js';
import { allowedRedirect, mergeAttribution, type AttributionInput } from './attribution.js';
import { signupAttemptMail, verifyEmailMail } from './signup.mail.js';
import { findSignupAttempt, insertSignupAttempt } from './signup.repo.js';

const HOUR_MS = 60 * 60 * 1000;

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
 * Queues a fresh /verify-email/:token link for an unverified account; the previous link stops
 * working (issueToken ends it).
 */
async function queueVerification(trx: Transaction<DB>, deps: Deps, user: UserRow): Promise<void> {
  const token = await issueToken({ db: trx, clock: deps.clock }, { userId: user.id, ...SETUP_TOKENS.verifyEmail });
  await queueMail(
    { db: trx, clock: deps.clock },
    {
      to: user.email,
      locale: mailLocale(user.locale),
      template: verifyEmailMail,
      data: {
        firstName: user.first_name,
        link: absoluteLink(deps.config, routePath('verifyEmail', { token })),
        hours: SETUP_TOKENS.verifyEmail.lifetimeMs / HOUR_MS,
      },
    },
  );
}

/** Tells the owner of an account that someone tried to sign up with its email. */
async function queueSignupAttempt(trx: Transaction<DB>, deps: Deps, user: UserRow): Promise<void> {
  await queueMail(
    { db: trx, clock: deps.clock },
    {
      to: user.email,
      locale: mailLocale(user.locale),
      template: signupAttemptMail,
      data: {
        firstName: user.first_name,
        signInUrl: absoluteLink(deps.config, ROUTES.signIn),
        resetUrl: absoluteLink(deps.config, ROUTES.forgotPassword),
      },
    },
  );
}

/**
 * The known-email path: no account is created or changed. An unverified account's owner gets a
 * fresh verification link (most likely they lost the first); anyone else a notice with sign-in
 * and reset links.
 */
async function mailExistingOwner(trx: Transaction<DB>, deps: Deps, user: UserRow): Promise<'verification' | 'notice'> {
  if (user.email_verified_at === null && user.deactivated_at === null) {
    await queueVerification(trx, deps, user);
    return 'verification';
  }
  await queueSignupAttempt(trx, deps, user);
  return 'notice';
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

  // Hashed before the transaction, whatever the email: equal cost on both paths.
  const passwordHash = await deps.passwords.hash(input.hashPassword);
  const signupId = randomId();
  const source = input.signupSource === undefined || input.signupSource === '' ? SIGNUP_SOURCES.email : input.signupSource;
  const { meta } = context;

  const attempt = () =>
    deps.db.transaction().execute(async (trx) => {
      const now = deps.clock.now();
      const audit = { db: trx, clock: deps.clock };
      const existing = await findUserByEmailKey(trx, emailKey);
      if (existing !== undefined) {
        await insertSignupAttempt(trx, { id: signupId, email_key: emailKey, user_id: null, created_at: now });
        const sent = await mailExistingOwner(trx, deps, existing);
        await recordAudit(audit, { type: 'signup.existing', meta, userId: existing.id, emailKey, detail: { sent } });
        return;
      }
      const phone = input.phoneNumber?.trim() ?? '';
      const user: UserRow = {
        id: randomId(),
        email,
        email_key: emailKey,
        first_name: input.firstName.trim(),
        last_name: input.lastName.trim(),
        phone_number: phone === '' ? null : phone,
        password_hash: passwordHash,
        locale: context.locale,
        email_verified_at: null,
        deactivated_at: null,
        org_id: null,
        created_at: now,
        updated_at: now,
      };
      await insertUser(trx, user);
      // redirectTo is kept only if it passes the allow-list (spec §5); setup then sends the browser there.
      const redirectTo = allowedRedirect(deps.config, input.redirectTo);
      await mergeAttribution(trx, user.id, { ...input, signupSource: source, redirectTo }, now);
      await insertSignupAttempt(trx, { id: signupId, email_key: emailKey, user_id: user.id, created_at: now });
      await queueVerification(trx, deps, user);
      await recordAudit(audit, { type: 'signup', meta, userId: user.id, emailKey, detail: { source } });
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
export async function resendVerification(deps: Deps, input: { email: string; userId: string }, meta: RequestMeta): Promise<void> {
  const emailKey = normalizeEmail(input.email);
  const attempt = await findSignupAttempt(deps.db, input.userId);
  if (attempt === undefined || attempt.email_key !== emailKey) return;
  await deps.db.transaction().execute(async (trx) => {
    const user = await findUserByEmailKey(trx, emailKey);
    if (user === undefined) return;
    const sent = await mailExistingOwner(trx, deps, user);
    await recordAudit({ db: trx, clock: deps.clock }, { type: 'verification.resent', meta, userId: user.id, emailKey, detail: { sent } });
  });
}
