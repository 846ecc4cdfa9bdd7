import { readFile } from 'node:fs/promises';
import { isUniqueViolation } from '../../db/errors.js';
import type { Deps } from '../../deps.js';
import { randomId } from '../../lib/crypto.js';
import { inTransaction } from '../../lib/unit-of-work.js';
import { recordAudit, type RequestMeta } from '../audit/audit.service.js';
import { findOrganization } from '../organizations/organizations.service.js';
import type { OrganizationRow } from '../organizations/organizations.repo.js';
import { MetadataError, parseIdpMetadata, type IdpMetadata } from './saml.metadata.js';
import { deleteConnectionOfOrg, findConnectionOfOrg, insertConnection, listConnections, type SsoConnectionRow } from './sso.repo.js';
import { sealClientSecret } from './sso.secret.js';

export type ConnectionProblem = 'unknownOrganization' | 'alreadyConnected' | 'notConnected' | 'badMetadata' | 'badIssuer' | 'blankClient';

/** What the admin CLI reports; never sent over HTTP. */
export class ConnectionError extends Error {
  override name = 'ConnectionError';
  constructor(
    readonly problem: ConnectionProblem,
    readonly detail?: string,
  ) {
    super(detail === undefined ? problem : `${problem}: ${detail}`);
  }
}

const METADATA_TIMEOUT_MS = 10_000;
const MAX_METADATA_BYTES = 1024 * 1024;

function isLoopback(url: URL): boolean {
  return url.hostname === 'localhost' || url.hostname === '127.0.0.1' || url.hostname === '[::1]';
}

/**
 * An issuer or metadata address: https, or plain http on this machine only (a developer's IdP and
 * the tests'); a plain-http address elsewhere lets anyone on the path swap the keys.
 */
export function acceptableRemoteUrl(value: string): URL | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  if (url.username !== '' || url.password !== '') return undefined;
  return url.protocol === 'https:' || (url.protocol === 'http:' && isLoopback(url)) ? url : undefined;
}

/** The metadata from a file or an https address. */
export async function loadMetadata(source: string): Promise<IdpMetadata> {
  let xml: string;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(source)) {
    const url = acceptableRemoteUrl(source);
    if (url === undefined) throw new ConnectionError('badMetadata', 'a metadata address must be https');
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(METADATA_TIMEOUT_MS), redirect: 'error' });
      if (!response.ok) throw new ConnectionError('badMetadata', `${url.href} answered ${response.status}`);
      xml = await response.text();
    } catch (error) {
      if (error instanceof ConnectionError) throw error;
      throw new ConnectionError('badMetadata', `${url.href} could not be read (${error instanceof Error ? error.message : String(error)})`);
    }
  } else {
    try {
      xml = await readFile(source, 'utf8');
    } catch (error) {
      throw new ConnectionError('badMetadata', `${source} could not be read (${error instanceof Error ? error.message : String(error)})`);
    }
  }
  if (xml.length > MAX_METADATA_BYTES) throw new ConnectionError('badMetadata', 'the metadata is larger than 1 MB');
  try {
    return parseIdpMetadata(xml);
  } catch (error) {
    if (error instanceof MetadataError) throw new ConnectionError('badMetadata', error.message);
    throw error;
  }
}

async function orgOf(deps: Deps, org: string): Promise<OrganizationRow> {
  const found = await findOrganization(deps, org);
  if (found === undefined) throw new ConnectionError('unknownOrganization');
  return found;
}

async function store(deps: Deps, row: SsoConnectionRow, meta: RequestMeta): Promise<void> {
  try {
    await inTransaction(deps, async (uow) => {
      if ((await findConnectionOfOrg(uow.db, row.org_id)) !== undefined) throw new ConnectionError('alreadyConnected');
      await insertConnection(uow.db, row);
      await recordAudit(uow, { type: 'sso.connectionAdded', meta, detail: { orgId: row.org_id, connectionId: row.id, kind: row.kind } });
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw new ConnectionError('alreadyConnected');
    throw error;
  }
}

function newId(): string {
  // The prefix keeps ids from starting with `-`, which a command line would read as an option.
  return `sso_${randomId()}`;
}

export async function addSamlConnection(
  deps: Deps,
  input: { org: string; metadata: string; allowUnsolicited: boolean },
  meta: RequestMeta,
): Promise<{ org: OrganizationRow; connection: SsoConnectionRow; idp: IdpMetadata }> {
  const org = await orgOf(deps, input.org);
  const idp = await loadMetadata(input.metadata);
  const connection: SsoConnectionRow = {
    id: newId(),
    org_id: org.id,
    kind: 'saml',
    saml_idp_entity_id: idp.entityId,
    saml_idp_sso_url: idp.ssoUrl,
    saml_idp_certs: JSON.stringify(idp.certificates),
    saml_allow_unsolicited: input.allowUnsolicited ? 1 : 0,
    oidc_issuer: null,
    oidc_client_id: null,
    oidc_client_secret: null,
    created_at: deps.clock.now(),
  };
  await store(deps, connection, meta);
  return { org, connection, idp };
}

export async function addOidcConnection(
  deps: Deps,
  input: { org: string; issuer: string; clientId: string; clientSecret: string },
  meta: RequestMeta,
): Promise<{ org: OrganizationRow; connection: SsoConnectionRow }> {
  const org = await orgOf(deps, input.org);
  const issuer = acceptableRemoteUrl(input.issuer.trim());
  if (issuer === undefined) throw new ConnectionError('badIssuer');
  if (input.clientId.trim() === '' || input.clientSecret === '') throw new ConnectionError('blankClient');
  const id = newId();
  const connection: SsoConnectionRow = {
    id,
    org_id: org.id,
    kind: 'oidc',
    saml_idp_entity_id: null,
    saml_idp_sso_url: null,
    saml_idp_certs: null,
    saml_allow_unsolicited: 0,
    // As typed (without a trailing slash added or removed): the ID token's `iss` must equal it.
    oidc_issuer: input.issuer.trim(),
    oidc_client_id: input.clientId.trim(),
    oidc_client_secret: sealClientSecret(deps.config, id, input.clientSecret),
    created_at: deps.clock.now(),
  };
  await store(deps, connection, meta);
  return { org, connection };
}

export async function removeConnection(
  deps: Deps,
  input: { org: string },
  meta: RequestMeta,
): Promise<{ org: OrganizationRow; connection: SsoConnectionRow }> {
  const org = await orgOf(deps, input.org);
  const connection = await inTransaction(deps, async (uow) => {
    const removed = await deleteConnectionOfOrg(uow.db, org.id);
    if (removed === undefined) throw new ConnectionError('notConnected');
    await recordAudit(uow, { type: 'sso.connectionRemoved', meta, detail: { orgId: org.id, connectionId: removed.id, kind: removed.kind } });
    return removed;
  });
  return { org, connection };
}

export async function connections(deps: Deps) {
  return listConnections(deps.db);
}
