import { isValidEmail, normalizeEmail } from '@foyer/contract';
import { isUniqueViolation } from '../../db/errors.js';
import type { Deps } from '../../deps.js';
import { inTransaction, type UnitOfWork } from '../../lib/unit-of-work.js';
import { auditRow, recordAudit, type AuditEvent, type RequestMeta } from '../audit/audit.service.js';
import { findIdentityAccount, insertIdentity, takeOverUnverified, touchIdentity } from '../google/google.repo.js';
import { findDomain } from '../organizations/organizations.repo.js';
import { emailDomain } from '../organizations/organizations.service.js';
import { deleteSessionsOfUser } from '../sessions/sessions.repo.js';
import { dropPendingCredentials } from '../signup/signup.repo.js';
import { SETUP_PURPOSES } from '../tokens/purposes.js';
import { newToken, spendOpenTokens } from '../tokens/tokens.js';
import { findUserByEmailKey, findUserById, insertUser, newUserRow, type UserRow } from '../users/users.repo.js';
import { SsoFailure } from './sso.failure.js';
import { writeSsoSignIn, type SsoConnectionRow } from './sso.repo.js';

/** A person as a connection's identity provider asserted them. */
export interface SsoIdentity {
  /** SAML NameID or OIDC `sub`. */
  subject: string;
  email: string | undefined;
  /** The provider named an email but said it did not verify it (OIDC `email_verified`); `email` is then undefined. */
  emailUnverified?: boolean;
  givenName?: string | undefined;
  familyName?: string | undefined;
}

export interface SsoAccount {
  user: UserRow;
  wasSignUp: boolean;
}

/** The identity key of a connection in `external_identities`: (connection, NameID or subject). */
export function ssoIssuerKey(connectionId: string): string {
  return `sso:${connectionId}`;
}

/** The email the provider asserted, trimmed, with its normalised key; undefined when it asserted none that is valid. */
function assertedEmail(identity: SsoIdentity): { email: string; emailKey: string } | undefined {
  const email = identity.email?.trim();
  return email === undefined || !isValidEmail(email) ? undefined : { email, emailKey: normalizeEmail(email) };
}

/** The audit event of the transfer token a company sign-in hands out. */
export function transferIssued(user: Pick<UserRow, 'id' | 'email_key'>, connection: SsoConnectionRow, meta: RequestMeta): AuditEvent {
  return { type: 'transfer.issued', meta, userId: user.id, emailKey: user.email_key, detail: { via: 'sso', connectionId: connection.id } };
}

/**
 * Which account a validated identity signs in to (decision 0022), in one transaction:
 * - a known identity: its account, which must still be an active member of the organisation
 *   (else 1001); when the provider now asserts another email, the account takes it unless another
 *   account has it (1004) or the organisation has not claimed its domain (1003); when it asserts
 *   none, the account stays as it is;
 * - otherwise, with no usable email asserted: 1003;
 * - otherwise an account with the email: linked when it is a member of this organisation (an
 *   invited member who never finished setup is verified and loses whatever a stranger may have
 *   put on it, decision 0014's rule), and taken over the same way, joining the organisation, when
 *   it is an unverified account of no organisation at an address of a domain this organisation
 *   claimed; a member of another organisation, a verified account of none, or deactivated: 1001;
 * - otherwise a new verified member, only for a domain this organisation claimed (another
 *   organisation's domain: 1001; an unclaimed one: 1003): a provider is trusted for its own
 *   company's addresses, never to mint accounts for anyone else's.
 * `complete` writes what the sign-in leads to (the transfer token) in the same transaction.
 */
export async function resolveSsoAccount<Completed>(
  deps: Deps,
  connection: SsoConnectionRow,
  identity: SsoIdentity,
  meta: RequestMeta,
  complete: (uow: UnitOfWork, account: SsoAccount) => Promise<Completed>,
): Promise<SsoAccount & { completed: Completed }> {
  const asserted = assertedEmail(identity);
  const issuer = ssoIssuerKey(connection.id);
  const orgId = connection.org_id;

  const resolve = async (uow: UnitOfWork): Promise<SsoAccount> => {
    const member = await findIdentityAccount(uow.db, issuer, identity.subject);
    if (member !== undefined) {
      if (member.org_id !== orgId || member.deactivated_at !== null) throw new SsoFailure('1001', 'no longer an active member');
      // The identity is the (connection, subject) pair: a provider that sends no email this time
      // still signs its known member in, to the account as it is.
      let current = member;
      if (asserted !== undefined && member.email_key !== asserted.emailKey) {
        const { email, emailKey } = asserted;
        if ((await findUserByEmailKey(uow.db, emailKey)) !== undefined) throw new SsoFailure('1004', 'the new email belongs to another account');
        if ((await findDomain(uow.db, emailDomain(emailKey)))?.org_id !== orgId)
          throw new SsoFailure('1003', "the new email's domain is not the organisation's");
        await uow.db.updateTable('users').set({ email, email_key: emailKey, updated_at: uow.now }).where('id', '=', member.id).execute();
        current = { ...member, email, email_key: emailKey };
      }
      await touchIdentity(uow.db, { issuer, subject: identity.subject, email: asserted?.email ?? current.email, now: uow.now });
      await recordAudit(uow, { type: 'sso.signin', meta, userId: member.id, emailKey: current.email_key, detail: { connectionId: connection.id } });
      return { user: current, wasSignUp: false };
    }
    if (asserted === undefined)
      throw new SsoFailure(
        '1003',
        identity.emailUnverified === true ? 'the provider says it did not verify the email' : 'the provider asserted no usable email',
      );
    const { email, emailKey } = asserted;
    const domainOwner = (await findDomain(uow.db, emailDomain(emailKey)))?.org_id;
    const existing = await findUserByEmailKey(uow.db, emailKey);
    if (existing !== undefined) {
      // An unverified account of no organisation at one of the organisation's own addresses was
      // made by whoever typed the address first, perhaps a stranger before the company came:
      // nobody owns it yet, so its owner, as the company's provider asserts them, takes it over.
      const unclaimed = existing.org_id === null && existing.email_verified_at === null && domainOwner === orgId;
      if ((existing.org_id !== orgId && !unclaimed) || existing.deactivated_at !== null)
        throw new SsoFailure('1001', 'the account is not an active member of the organisation');
      return { user: await link(uow, connection, identity, existing, meta), wasSignUp: false };
    }
    if (domainOwner !== orgId) {
      throw domainOwner === undefined
        ? new SsoFailure('1003', "the email's domain is not the organisation's")
        : new SsoFailure('1001', "the email's domain belongs to another organisation");
    }
    const user = newUserRow({
      email,
      emailKey,
      firstName: identity.givenName ?? null,
      lastName: identity.familyName ?? null,
      verifiedAt: uow.now,
      orgId,
      now: uow.now,
    });
    await insertUser(uow.db, user);
    await insertIdentity(uow.db, { issuer, subject: identity.subject, user_id: user.id, email, created_at: uow.now, last_used_at: uow.now });
    await recordAudit(uow, { type: 'sso.signup', meta, userId: user.id, emailKey, detail: { connectionId: connection.id } });
    return { user, wasSignUp: true };
  };
  const attempt = () =>
    inTransaction(deps, async (uow) => {
      const account = await resolve(uow);
      return { ...account, completed: await complete(uow, account) };
    });

  try {
    return await attempt();
  } catch (error) {
    // The same person's two first sign-ins at once: the loser finds what the winner made.
    if (!isUniqueViolation(error)) throw error;
    try {
      return await attempt();
    } catch (again) {
      if (isUniqueViolation(again)) throw new SsoFailure('1003', 'the account could not be created', { cause: again });
      throw again;
    }
  }
}

/**
 * The common case of `resolveSsoAccount` with its transfer token, written in one go (decision
 * 0029): a known identity whose account is still an active member of the organisation and whose
 * email is unchanged (or not asserted this time). Its account is read, then the identity's use, the `sso.signin` audit row,
 * the transfer token (ending the member's unused ones) and its `transfer.issued` row are written
 * together, on PostgreSQL in one statement. Undefined for every other case, which
 * `resolveSsoAccount` decides and audits in its transaction.
 */
export async function signInReturningMember(
  deps: Deps,
  connection: SsoConnectionRow,
  identity: SsoIdentity,
  meta: RequestMeta,
  bindingHash: string | null,
): Promise<{ user: UserRow; transferToken: string } | undefined> {
  const asserted = assertedEmail(identity);
  const issuer = ssoIssuerKey(connection.id);
  const member = await findIdentityAccount(deps.db, issuer, identity.subject);
  if (member === undefined || member.org_id !== connection.org_id || member.deactivated_at !== null) return undefined;
  if (asserted !== undefined && member.email_key !== asserted.emailKey) return undefined;
  // No email asserted this time: the known identity signs in to the account as it is.
  const email = asserted?.email ?? member.email;
  const emailKey = member.email_key;
  const now = deps.clock.now();
  const { token, row } = newToken(now, { userId: member.id, purpose: 'transfer', bindingHash });
  await writeSsoSignIn(deps.db, {
    identity: { issuer, subject: identity.subject, email, now },
    signInAudit: auditRow(now, { type: 'sso.signin', meta, userId: member.id, emailKey, detail: { connectionId: connection.id } }),
    token: row,
    issuedAudit: auditRow(now, transferIssued(member, connection, meta)),
  });
  return { user: member, transferToken: token };
}

async function link(uow: UnitOfWork, connection: SsoConnectionRow, identity: SsoIdentity, user: UserRow, meta: RequestMeta): Promise<UserRow> {
  let current = user;
  const names = { firstName: identity.givenName ?? null, lastName: identity.familyName ?? null };
  const takeover = user.email_verified_at === null && (await takeOverUnverified(uow.db, { userId: user.id, ...names, now: uow.now }));
  // An account of no organisation is only ever taken over, never linked as it is (verified since it was read: 1001).
  if (user.org_id === null && !takeover) throw new SsoFailure('1001', 'the account is not an active member of the organisation');
  if (takeover) {
    if (user.org_id === null) await uow.db.updateTable('users').set({ org_id: connection.org_id }).where('id', '=', user.id).execute();
    await dropPendingCredentials(uow.db, user.email_key);
    await spendOpenTokens(uow, user.id, SETUP_PURPOSES);
    await deleteSessionsOfUser(uow.db, user.id);
    current = (await findUserById(uow.db, user.id)) ?? user;
  }
  const issuer = ssoIssuerKey(connection.id);
  await insertIdentity(uow.db, { issuer, subject: identity.subject, user_id: user.id, email: user.email, created_at: uow.now, last_used_at: uow.now });
  await recordAudit(uow, { type: 'sso.linked', meta, userId: user.id, emailKey: user.email_key, detail: { connectionId: connection.id, takeover } });
  return current;
}
