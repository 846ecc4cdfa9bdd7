import type { Kysely } from 'kysely';

/**
 * Company single sign-on (decision 0022).
 *
 * `sso_connections`: one identity provider per organisation, SAML 2.0 or OpenID Connect. For
 * SAML, the IdP's entity ID, its single sign-on address and every signing certificate it
 * published (a JSON array, so a rollover keeps the old and the new one); responses are verified
 * against these and nothing else. For OIDC, the issuer, client id and client secret.
 *
 * `sso_requests`: every sign-in this service started and is waiting for, keyed by the SAML
 * AuthnRequest ID (so `InResponseTo` must name one of them) or the SHA-256 of the OIDC `state`;
 * single use and short-lived, in the database so the answer may reach any instance.
 *
 * `sso_assertions_seen`: the IDs of assertions already accepted, per connection, until they
 * expire: a captured response replayed on any instance is refused.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('sso_connections')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().unique().references('organizations.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('saml_idp_entity_id', 'text')
    .addColumn('saml_idp_sso_url', 'text')
    .addColumn('saml_idp_certs', 'text')
    .addColumn('saml_allow_unsolicited', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('oidc_issuer', 'text')
    .addColumn('oidc_client_id', 'text')
    .addColumn('oidc_client_secret', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('sso_requests')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('connection_id', 'text', (c) => c.notNull().references('sso_connections.id').onDelete('cascade'))
    .addColumn('client_kind', 'text')
    .addColumn('return_url', 'text')
    .addColumn('nonce', 'text')
    .addColumn('code_verifier', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('used_at', 'bigint')
    .execute();
  await db.schema.createIndex('sso_requests_expires_idx').on('sso_requests').column('expires_at').execute();

  await db.schema
    .createTable('sso_assertions_seen')
    .addColumn('connection_id', 'text', (c) => c.notNull().references('sso_connections.id').onDelete('cascade'))
    .addColumn('assertion_id', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('sso_assertions_seen_pk', ['connection_id', 'assertion_id'])
    .execute();
  await db.schema.createIndex('sso_assertions_seen_expires_idx').on('sso_assertions_seen').column('expires_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('sso_assertions_seen').execute();
  await db.schema.dropTable('sso_requests').execute();
  await db.schema.dropTable('sso_connections').execute();
}
