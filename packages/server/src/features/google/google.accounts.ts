import { SIGNUP_SOURCES, normalizeEmail } from '@foyer/contract';
import { isUniqueViolation } from '../../db/errors.js';
import type { Deps } from '../../deps.js';
import { AppError } from '../../lib/errors.js';
import { inTransaction, type UnitOfWork } from '../../lib/unit-of-work.js';
import { mergeAttribution, type AttributionInput } from '../attribution/attribution.repo.js';
import { auditRow, recordAudit, type RequestMeta } from '../audit/audit.service.js';
import { ssoRequiredFor } from '../organizations/organizations.service.js';
import { deleteSessionsOfUser } from '../sessions/sessions.repo.js';
import { newSession, sessionIdOf, type StartedSession } from '../sessions/sessions.service.js';
import { dropPendingCredentials } from '../signup/signup.repo.js';
import { SETUP_PURPOSES } from '../tokens/purposes.js';
import { spendOpenTokens } from '../tokens/tokens.js';
import { findUserByEmailKey, findUserById, insertUser, newUserRow, type UserRow } from '../users/users.repo.js';
import type { GoogleIdentity } from './google.client.js';
import { findIdentityAccount, insertIdentity, takeOverUnverified, touchIdentity, writeGoogleSignIn } from './google.repo.js';

export type GoogleAttribution = Omit<AttributionInput, 'redirectTo'>;

export interface GoogleAccount {
  user: UserRow;
  wasSignUp: boolean;
}

type Refusal = 'ssoRequired' | 'deactivatedAccount' | 'emailNotVerified';

/**
 * Which account a validated Google identity signs in to (decision 0019), in one transaction:
 * - the identity (issuer, subject) is known: its account;
 * - otherwise, no account has the email: a new, verified account with the provider's names and
 *   the sign-up source (`auth/sign-up/google` unless the page named another), attribution and plan;
 * - otherwise the account with the email, linked only when the provider asserted `email_verified`;
 *   one that was never verified is taken over without anything a stranger may have set on it.
 * Refused: an email whose domain requires SSO (`ssoRequired`), and so a known identity whose
 * account's own address is at such a domain, a deactivated account, an email the provider did not
 * vouch for (`emailNotVerified`). Every outcome is audited.
 *
 * `complete` writes what the sign-in leads to (the browser's session, or a transfer token) in the
 * same transaction: one commit for the whole sign-in, and nothing of it kept if any write fails.
 */
export async function resolveGoogleAccount<Completed>(
  deps: Deps,
  identity: GoogleIdentity,
  attribution: GoogleAttribution,
  meta: RequestMeta,
  complete: (uow: UnitOfWork, account: GoogleAccount) => Promise<Completed>,
): Promise<GoogleAccount & { completed: Completed }> {
  const emailKey = normalizeEmail(identity.email);
  const refuse = async (reason: Refusal, userId: string | null, email = identity.email): Promise<never> => {
    await inTransaction(deps, (uow) => recordAudit(uow, { type: 'google.refused', meta, userId, emailKey, detail: { reason, issuer: identity.issuer } }));
    // ssoRequired carries the address, so the page's 'Sign in with SSO' link can fill it in.
    throw new AppError(reason, reason === 'ssoRequired' ? { email } : undefined);
  };
  // Spec §8: a domain that requires SSO is refused whatever the account (it says nothing of one).
  if (await ssoRequiredFor(deps, emailKey)) return refuse('ssoRequired', null);

  const resolve = async (uow: UnitOfWork): Promise<GoogleAccount | Refusal | { refused: Refusal; userId: string; email?: string }> => {
    const user = await findIdentityAccount(uow.db, identity.issuer, identity.subject);
    if (user !== undefined) {
      if (user.deactivated_at !== null) return { refused: 'deactivatedAccount', userId: user.id };
      // The account may have moved to an address whose domain has required SSO since the identity
      // was linked: the account's own address decides, as at password sign-in.
      if (user.email_key !== emailKey && (await ssoRequiredFor(uow, user.email_key)))
        return { refused: 'ssoRequired', userId: user.id, email: user.email };
      await touchIdentity(uow.db, { issuer: identity.issuer, subject: identity.subject, email: identity.email, now: uow.now });
      await recordAudit(uow, { type: 'google.signin', meta, userId: user.id, emailKey: user.email_key, detail: { issuer: identity.issuer } });
      return { user, wasSignUp: false };
    }
    // An address the provider does not vouch for proves nothing about who owns it: it neither
    // creates an account (its owner could later not take it back) nor opens one.
    if (identity.emailVerified !== true) {
      const existing = await findUserByEmailKey(uow.db, emailKey);
      return existing === undefined ? 'emailNotVerified' : { refused: 'emailNotVerified', userId: existing.id };
    }
    const existing = await findUserByEmailKey(uow.db, emailKey);
    if (existing === undefined) return { user: await signUpWithGoogle(uow, identity, emailKey, attribution, meta), wasSignUp: true };
    if (existing.deactivated_at !== null) return { refused: 'deactivatedAccount', userId: existing.id };
    return { user: await linkExisting(uow, identity, existing, meta), wasSignUp: false };
  };
  const attempt = () =>
    inTransaction(deps, async (uow) => {
      const outcome = await resolve(uow);
      return typeof outcome === 'object' && 'user' in outcome ? { ...outcome, completed: await complete(uow, outcome) } : outcome;
    });

  let outcome: Awaited<ReturnType<typeof attempt>>;
  try {
    outcome = await attempt();
  } catch (error) {
    // The same person's two first sign-ins at once: the loser finds what the winner made.
    if (!isUniqueViolation(error)) throw error;
    outcome = await attempt();
  }
  if (typeof outcome === 'string') return refuse(outcome, null);
  if ('refused' in outcome) return refuse(outcome.refused, outcome.userId, outcome.email);
  return outcome;
}

/**
 * The common case of `resolveGoogleAccount`, a returning account's sign-in to a browser session
 * (decision 0029): the identity is known, its account active, its domain does not require SSO.
 * Its account is read, then its writes (the identity touched, the `google.signin` audit row, the
 * browser's old session ended, the new one started) are made together, on PostgreSQL in one
 * statement where the transaction took six round trips. Undefined for every other case, which
 * `resolveGoogleAccount` decides and audits in its transaction.
 */
export async function signInReturningAccount(
  deps: Deps,
  identity: GoogleIdentity,
  meta: RequestMeta,
  device: { deviceId: string; previousToken: string | undefined },
): Promise<{ user: UserRow; started: StartedSession } | undefined> {
  const emailKey = normalizeEmail(identity.email);
  if (await ssoRequiredFor(deps, emailKey)) return undefined;
  const user = await findIdentityAccount(deps.db, identity.issuer, identity.subject);
  if (user === undefined || user.deactivated_at !== null) return undefined;
  if (user.email_key !== emailKey && (await ssoRequiredFor(deps, user.email_key))) return undefined;
  const now = deps.clock.now();
  const session = newSession(now, deps.config, { userId: user.id, deviceId: device.deviceId });
  await writeGoogleSignIn(deps.db, {
    identity: { issuer: identity.issuer, subject: identity.subject, email: identity.email, now },
    audit: auditRow(now, { type: 'google.signin', meta, userId: user.id, emailKey: user.email_key, detail: { issuer: identity.issuer } }),
    endedSessionId: sessionIdOf(device.previousToken),
    session: session.row,
  });
  return { user, started: session.started };
}

async function signUpWithGoogle(
  uow: UnitOfWork,
  identity: GoogleIdentity,
  emailKey: string,
  attribution: GoogleAttribution,
  meta: RequestMeta,
): Promise<UserRow> {
  const user = newUserRow({
    email: identity.email,
    emailKey,
    firstName: identity.givenName ?? null,
    lastName: identity.familyName ?? null,
    verifiedAt: uow.now,
    now: uow.now,
  });
  await insertUser(uow.db, user);
  await insertIdentity(uow.db, { ...identityRow(identity, user.id, uow.now) });
  const source = attribution.signupSource === undefined || attribution.signupSource === '' ? SIGNUP_SOURCES.google : attribution.signupSource;
  await mergeAttribution(uow.db, user.id, { ...attribution, signupSource: source }, uow.now);
  await recordAudit(uow, { type: 'google.signup', meta, userId: user.id, emailKey, detail: { source, issuer: identity.issuer } });
  return user;
}

async function linkExisting(uow: UnitOfWork, identity: GoogleIdentity, user: UserRow, meta: RequestMeta): Promise<UserRow> {
  let current = user;
  // Decision 0014's rule for Google: whoever created an unverified account may not be its owner,
  // so the owner gets it without the stranger's password, pending sign-ups, open links or
  // sessions. Verified meanwhile by its mailbox's owner: linked as any verified account.
  const names = { firstName: identity.givenName ?? null, lastName: identity.familyName ?? null };
  const takeover = user.email_verified_at === null && (await takeOverUnverified(uow.db, { userId: user.id, ...names, now: uow.now }));
  if (takeover) {
    await dropPendingCredentials(uow.db, user.email_key);
    await spendOpenTokens(uow, user.id, SETUP_PURPOSES);
    await deleteSessionsOfUser(uow.db, user.id);
    current = (await findUserById(uow.db, user.id)) ?? user;
  }
  await insertIdentity(uow.db, identityRow(identity, user.id, uow.now));
  await recordAudit(uow, { type: 'google.linked', meta, userId: user.id, emailKey: user.email_key, detail: { takeover, issuer: identity.issuer } });
  return current;
}

function identityRow(identity: GoogleIdentity, userId: string, now: number) {
  return { issuer: identity.issuer, subject: identity.subject, user_id: userId, email: identity.email, created_at: now, last_used_at: now };
}
