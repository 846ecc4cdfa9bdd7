import { ROUTES, isSupportedLocale, isValidEmail, normalizeEmail, routePath, type Locale } from '@foyer/contract';
import { isUniqueViolation } from '../../db/errors.js';
import { inTransaction, type UnitOfWork } from '../../lib/unit-of-work.js';
import type { Deps } from '../../deps.js';
import { recordAudit, type RequestMeta } from '../audit/audit.service.js';
import { absoluteLink, queueMail } from '../mail/mail.service.js';
import { mailLocale } from '../mail/mail.template.js';
import { SETUP_PURPOSES, lifetimeOf } from '../tokens/purposes.js';
import { issueToken, spendOpenTokens } from '../tokens/tokens.js';
import { deleteSessionsOfUser } from '../sessions/sessions.repo.js';
import { dropPendingCredentials } from '../signup/signup.repo.js';
import { findUserById, findUserByEmailKey, insertUser, newUserRow, type UserRow } from '../users/users.repo.js';
import { invitationMail, ssoInvitationMail } from './invitation.mail.js';
import { OrganizationError, findOrganization, ssoRequiredFor } from './organizations.service.js';

const DAY_MS = 24 * 60 * 60 * 1000;

export interface Invitation {
  user: UserRow;
  /** True when the person was already a member: a fresh link replaced the old one. */
  resent: boolean;
  /** True when the organisation requires SSO for the email's domain: the mail links to SSO sign-in. */
  sso: boolean;
}

/**
 * Makes someone a member of an organisation and emails them a /setup-account/:token link (7
 * days). The account has no name and no password until they set them there; their email counts
 * as verified then, since the link reached it. Inviting a member who has not finished setup
 * again sends a fresh link and invalidates the previous one. An unverified account of no
 * organisation becomes the invitee's (`adoptUnclaimed`). An account that is set up, belongs
 * to another organisation or is a verified one of no organisation is left alone (decision 0009): the link would
 * otherwise sign its holder in without a password.
 *
 * When an organisation requires SSO for the email's domain (decision 0022) the mail links to
 * /sso-sign-in with the address filled in instead, and no setup link is issued; any the member
 * still holds from before the requirement stops working, so no password can be set there.
 */
export async function inviteMember(deps: Deps, input: { org: string; email: string; locale?: string }, meta: RequestMeta): Promise<Invitation> {
  const org = await findOrganization(deps, input.org);
  if (org === undefined) throw new OrganizationError('unknownOrganization');
  const email = input.email.trim();
  if (!isValidEmail(email)) throw new OrganizationError('invalidEmail');
  if (input.locale !== undefined && !isSupportedLocale(input.locale)) throw new OrganizationError('invalidLocale');
  const emailKey = normalizeEmail(email);

  const invite = () =>
    inTransaction(deps, async (uow): Promise<Invitation> => {
      const { db: trx, now } = uow;
      const existing = await findUserByEmailKey(trx, emailKey);
      // Whoever typed the address first, perhaps a stranger, never proved it: an unverified account
      // of no organisation is no one's yet, and becomes the invitee's (decision 0014's rule).
      const unclaimed = existing !== undefined && existing.org_id === null && existing.email_verified_at === null && existing.deactivated_at === null;
      if (existing !== undefined && !unclaimed) {
        if (existing.org_id !== org.id) throw new OrganizationError('otherAccount');
        if (existing.deactivated_at !== null) throw new OrganizationError('deactivated');
        if (existing.email_verified_at !== null) throw new OrganizationError('alreadySetUp');
      }
      const locale: Locale = input.locale !== undefined ? mailLocale(input.locale) : mailLocale(existing?.locale);
      let user: UserRow = existing ?? newUserRow({ email, emailKey, locale, orgId: org.id, now });
      if (existing === undefined) await insertUser(trx, user);
      if (unclaimed) user = await adoptUnclaimed(uow, user, org.id);
      const sso = await ssoRequiredFor(uow, emailKey);
      if (sso) {
        await spendOpenTokens(uow, user.id, SETUP_PURPOSES);
        const query = new URLSearchParams({ email: user.email });
        await queueMail(uow, deps.config, {
          to: user.email,
          locale,
          template: ssoInvitationMail,
          data: { organization: org.name, link: absoluteLink(deps.config, `${ROUTES.ssoSignIn}?${query.toString()}`) },
        });
      } else {
        const token = await issueToken(uow, { userId: user.id, purpose: 'invitation' });
        await queueMail(uow, deps.config, {
          to: user.email,
          locale,
          template: invitationMail,
          data: {
            organization: org.name,
            link: absoluteLink(deps.config, routePath('setupAccount', { token })),
            days: lifetimeOf('invitation') / DAY_MS,
          },
        });
      }
      const resent = existing !== undefined && !unclaimed;
      await recordAudit(uow, { type: 'org.invited', meta, userId: user.id, emailKey, detail: { orgId: org.id, resent, sso } });
      return { user, resent, sso };
    });

  try {
    return await invite();
  } catch (error) {
    // Invited twice at once: the second finds the member the first created.
    if (isUniqueViolation(error)) return invite();
    throw error;
  }
}

/**
 * An unverified account of no organisation joins the inviting one as an invitation leaves an
 * account: no name, no password, no phone, still unverified until its setup link is used. What
 * its creator set goes, with their pending sign-up credentials, open links and sessions; only
 * while it is still unverified and of no organisation (checked in the UPDATE), else `otherAccount`.
 */
async function adoptUnclaimed(uow: UnitOfWork, user: UserRow, orgId: string): Promise<UserRow> {
  const adopted = await uow.db
    .updateTable('users')
    .set({ org_id: orgId, password_hash: null, first_name: null, last_name: null, phone_number: null, updated_at: uow.now })
    .where('id', '=', user.id)
    .where('org_id', 'is', null)
    .where('email_verified_at', 'is', null)
    .executeTakeFirst();
  if (Number(adopted.numUpdatedRows) !== 1) throw new OrganizationError('otherAccount');
  await dropPendingCredentials(uow.db, user.email_key);
  await spendOpenTokens(uow, user.id, SETUP_PURPOSES);
  await deleteSessionsOfUser(uow.db, user.id);
  return (await findUserById(uow.db, user.id)) ?? user;
}
