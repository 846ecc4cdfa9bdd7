import { sql, type Insertable, type Selectable } from 'kysely';
import { preparedStatement } from '../../db/prepared.js';
import type { Db, OrganizationDomainsTable, OrganizationsTable } from '../../db/schema.js';

export type OrganizationRow = Selectable<OrganizationsTable>;
export type OrganizationDomainRow = Selectable<OrganizationDomainsTable>;

export async function insertOrganization(db: Db, row: Insertable<OrganizationsTable>): Promise<void> {
  await db.insertInto('organizations').values(row).execute();
}

export async function findOrganizationById(db: Db, id: string): Promise<OrganizationRow | undefined> {
  return db.selectFrom('organizations').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function findOrganizationByNameKey(db: Db, nameKey: string): Promise<OrganizationRow | undefined> {
  return db.selectFrom('organizations').selectAll().where('name_key', '=', nameKey).executeTakeFirst();
}

/**
 * Sign-up, Google sign-in, the password reset and SSO sign-in each ask whether the email's domain
 * is claimed and requires SSO (decision 0022), so this read is compiled once and, on PostgreSQL,
 * prepared once per connection (decision 0029). A password sign-in asks inside its reservation
 * instead (`ssoRequiredClaim`).
 */
const domainRow = preparedStatement('foyer_domain_find', ['domain'], (db: Db, { domain }: { domain: string }) =>
  db.selectFrom('organization_domains').selectAll().where('domain', '=', domain),
);

export async function findDomain(db: Db, domain: string): Promise<OrganizationDomainRow | undefined> {
  return (await domainRow(db, { domain })).rows[0];
}

/**
 * A subquery with a row when `domain` requires SSO (decision 0022), for statements that must act
 * only where it does not (the password sign-in's reservation, lockout.repo.ts).
 */
export function ssoRequiredClaim(db: Db, domain: string) {
  return db
    .selectFrom('organization_domains')
    .select(sql`1`.as('one'))
    .where('organization_domains.domain', '=', domain)
    .where('organization_domains.sso_required', '=', 1);
}

export async function insertDomain(db: Db, row: OrganizationDomainRow): Promise<void> {
  await db.insertInto('organization_domains').values(row).execute();
}

export async function setDomainSsoRequired(db: Db, domain: string, ssoRequired: boolean): Promise<void> {
  await db
    .updateTable('organization_domains')
    .set({ sso_required: ssoRequired ? 1 : 0 })
    .where('domain', '=', domain)
    .execute();
}
