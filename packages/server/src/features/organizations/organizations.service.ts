import { NO_CONTROL_CHARACTERS } from '@foyer/contract';
import { isUniqueViolation } from '../../db/errors.js';
import { inTransaction } from '../../lib/unit-of-work.js';
import type { Deps } from '../../deps.js';
import { randomId } from '../../lib/crypto.js';
import { recordAudit, type RequestMeta } from '../audit/audit.service.js';
import { deleteSessionsOfDomain } from '../sessions/sessions.repo.js';
import {
  findDomain,
  findOrganizationById,
  findOrganizationByNameKey,
  insertDomain,
  insertOrganization,
  setDomainSsoRequired,
  type OrganizationRow,
} from './organizations.repo.js';

export type OrganizationProblem =
  | 'invalidName'
  | 'nameTaken'
  | 'invalidDomain'
  | 'domainTaken'
  | 'unknownOrganization'
  | 'invalidEmail'
  | 'invalidLocale'
  | 'alreadySetUp'
  | 'otherAccount'
  | 'deactivated';

/** What the admin CLI reports; never sent over HTTP. */
export class OrganizationError extends Error {
  override name = 'OrganizationError';
  constructor(readonly problem: OrganizationProblem) {
    super(problem);
  }
}

const DOMAIN_PATTERN = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/;
const MAX_NAME_LENGTH = 200;

/** `@Example.COM ` → `example.com`, or undefined when it is not a domain name. */
export function normalizeDomain(value: string): string | undefined {
  const domain = value.trim().toLowerCase().replace(/^@/, '');
  return DOMAIN_PATTERN.test(domain) ? domain : undefined;
}

/** The domain of a normalised email: everything after the last `@`. */
export function emailDomain(emailKey: string): string {
  return emailKey.slice(emailKey.lastIndexOf('@') + 1);
}

/**
 * True when an organisation has claimed the email's domain with SSO required: sign-up with a
 * password is then refused (spec §8 ssoRequired). Exact domain only; subdomains are claimed
 * one by one.
 */
export async function ssoRequiredFor(deps: Pick<Deps, 'db'>, emailKey: string): Promise<boolean> {
  const claim = await findDomain(deps.db, emailDomain(emailKey));
  return claim?.sso_required === 1;
}

/** By id, or else by name in any letter case (the CLI's `--org`). */
export async function findOrganization(deps: Pick<Deps, 'db'>, idOrName: string): Promise<OrganizationRow | undefined> {
  return (await findOrganizationById(deps.db, idOrName)) ?? findOrganizationByNameKey(deps.db, idOrName.trim().toLowerCase());
}

export async function createOrganization(
  deps: Deps,
  input: { name: string; domain?: string; ssoRequired: boolean },
  meta: RequestMeta,
): Promise<OrganizationRow> {
  const name = input.name.trim();
  if (name === '' || name.length > MAX_NAME_LENGTH || !NO_CONTROL_CHARACTERS.test(name)) throw new OrganizationError('invalidName');
  const domain = input.domain === undefined ? undefined : normalizeDomain(input.domain);
  if (input.domain !== undefined && domain === undefined) throw new OrganizationError('invalidDomain');
  const now = deps.clock.now();
  // The prefix keeps ids from starting with `-`, which a command line would read as an option.
  const org: OrganizationRow = { id: `org_${randomId()}`, name, name_key: name.toLowerCase(), created_at: now };
  try {
    await inTransaction(deps, async (uow) => {
      const trx = uow.db;
      if ((await findOrganizationByNameKey(trx, org.name_key)) !== undefined) throw new OrganizationError('nameTaken');
      await insertOrganization(trx, org);
      if (domain !== undefined) {
        if ((await findDomain(trx, domain)) !== undefined) throw new OrganizationError('domainTaken');
        await insertDomain(trx, { domain, org_id: org.id, sso_required: input.ssoRequired ? 1 : 0, created_at: now });
      }
      const sessionsEnded = domain !== undefined && input.ssoRequired ? await deleteSessionsOfDomain(trx, domain) : 0;
      const detail = { orgId: org.id, ...(domain === undefined ? {} : { domain, ssoRequired: input.ssoRequired, sessionsEnded }) };
      await recordAudit(uow, { type: 'org.created', meta, detail });
    });
  } catch (error) {
    // Two creations at once: the unique indexes decide.
    if (isUniqueViolation(error)) throw new OrganizationError(domain === undefined ? 'nameTaken' : 'domainTaken');
    throw error;
  }
  return org;
}

/**
 * Claims an email domain for an organisation; claiming it again changes whether SSO is
 * required. A domain belongs to one organisation only.
 */
export async function claimDomain(
  deps: Deps,
  input: { org: string; domain: string; ssoRequired: boolean },
  meta: RequestMeta,
): Promise<{ org: OrganizationRow; domain: string; updated: boolean }> {
  const org = await findOrganization(deps, input.org);
  if (org === undefined) throw new OrganizationError('unknownOrganization');
  const domain = normalizeDomain(input.domain);
  if (domain === undefined) throw new OrganizationError('invalidDomain');
  let updated = false;
  try {
    await inTransaction(deps, async (uow) => {
      const trx = uow.db;
      const existing = await findDomain(trx, domain);
      if (existing !== undefined && existing.org_id !== org.id) throw new OrganizationError('domainTaken');
      if (existing === undefined) {
        await insertDomain(trx, { domain, org_id: org.id, sso_required: input.ssoRequired ? 1 : 0, created_at: deps.clock.now() });
      } else {
        await setDomainSsoRequired(trx, domain, input.ssoRequired);
        updated = true;
      }
      // From now on the domain has no passwords (decision 0022): what a password opened, a
      // browser session or a year-long device token, ends with them. Members sign in again
      // through the organisation's provider, which now decides who gets in.
      const newlyRequired = input.ssoRequired && existing?.sso_required !== 1;
      const sessionsEnded = newlyRequired ? await deleteSessionsOfDomain(trx, domain) : 0;
      const detail = { orgId: org.id, domain, ssoRequired: input.ssoRequired, sessionsEnded };
      await recordAudit(uow, { type: 'org.domainClaimed', meta, detail });
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw new OrganizationError('domainTaken');
    throw error;
  }
  return { org, domain, updated };
}
