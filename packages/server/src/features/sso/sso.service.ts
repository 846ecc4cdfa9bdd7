import { X509Certificate, randomBytes } from 'node:crypto';
import { ROUTES, SsoClientState, hasControlCharacters, isAppSchemeUrl, normalizeEmail, type SsoLandingCode } from '@foyer/contract';
import type { Deps } from '../../deps.js';
import { randomToken, sha256Hex } from '../../lib/crypto.js';
import { AppError } from '../../lib/errors.js';
import { expirySweep } from '../../lib/expiry-sweep.js';
import { assertedName, usableSubject } from '../../lib/provider-claims.js';
import { inTransaction } from '../../lib/unit-of-work.js';
import { recordAudit, withClientPeriod, type RequestMeta } from '../audit/audit.service.js';
import { findDomain } from '../organizations/organizations.repo.js';
import { emailDomain } from '../organizations/organizations.service.js';
import { issueToken } from '../tokens/tokens.js';
import type { SamlConnectionSettings } from './saml.response.js';
import type { SamlThreads } from './saml.thread.js';
import { resolveSsoAccount, signInReturningMember, transferIssued, type SsoIdentity } from './sso.accounts.js';
import { DESKTOP_HANDOFF } from './sso.binding.js';
import { SsoFailure } from './sso.failure.js';
import type { SsoOidcClients } from './sso.oidc.js';
import { deleteExpiredRequests, findConnectionById, findConnectionOfOrg, insertRequest, type SsoConnectionRow, type SsoRequestRow } from './sso.repo.js';
import { ssoUrls } from './sso.urls.js';

/** A person has this long at their identity provider; then the answer is refused (1002). */
export const SSO_REQUEST_LIFETIME_MS = 10 * 60 * 1000;

/**
 * Spending a request compares its expiry (sso.repo.ts), and an assertion remembered a minute past
 * its own is refused by its conditions anyway.
 */
const forgetExpiredRequests = expirySweep(deleteExpiredRequests);

/** Reads the start call's `state` (decision 0022); the return address only if it passes the allow-list. */
export function parseClientState(deps: Pick<Deps, 'redirects'>, state: string | undefined): { clientKind: string | null; returnUrl: string | null } {
  let parsed: SsoClientState = {};
  if (state !== undefined && state !== '') {
    try {
      const result = SsoClientState.safeParse(JSON.parse(state));
      if (result.success) parsed = result.data;
    } catch {
      // Not JSON: a web sign-in without a return address.
    }
  }
  return { clientKind: parsed.clientKind ?? null, returnUrl: deps.redirects.allowed(parsed.returnUrl) ?? null };
}

/** Verdicts on stored certificates, by their text: parsing one costs about 0.3 ms per SSO call. */
const certificateVerdicts = new Map<string, boolean>();
/** More connections than this are checked afresh; the memo never grows past it. */
const CERTIFICATE_VERDICTS_MAX = 1000;

function readableCertificate(pem: string): boolean {
  const known = certificateVerdicts.get(pem);
  if (known !== undefined) return known;
  let readable: boolean;
  try {
    new X509Certificate(pem);
    readable = true;
  } catch {
    readable = false;
  }
  if (certificateVerdicts.size < CERTIFICATE_VERDICTS_MAX) certificateVerdicts.set(pem, readable);
  return readable;
}

/**
 * A SAML connection's settings; its stored certificates must all be readable X.509 (a row with a
 * damaged certificate is misconfigured, 1005, rather than every response failing as forged).
 */
export function samlSettings(deps: Pick<Deps, 'config'>, connection: SsoConnectionRow): SamlConnectionSettings {
  const urls = ssoUrls(deps.config, connection.id);
  let stored: unknown = [];
  try {
    stored = JSON.parse(connection.saml_idp_certs ?? '[]');
  } catch {
    stored = [];
  }
  const certificates = Array.isArray(stored) ? stored.filter((cert): cert is string => typeof cert === 'string' && readableCertificate(cert)) : [];
  const damaged = !Array.isArray(stored) || certificates.length !== stored.length;
  if (connection.kind !== 'saml' || certificates.length === 0 || damaged || !connection.saml_idp_entity_id || !connection.saml_idp_sso_url) {
    throw new SsoFailure('1005', 'the SAML connection lacks its IdP entity ID, address or readable certificates');
  }
  return {
    connectionId: connection.id,
    idpEntityId: connection.saml_idp_entity_id,
    idpSsoUrl: connection.saml_idp_sso_url,
    certificates,
    spEntityId: urls.entityId,
    acsUrl: urls.acs,
  };
}

/**
 * Spec §7 SSO start `{ email, clientAuthenticationPeriodId, state }` → `{ url }`. The email's
 * exact domain decides the organisation and so the connection (an email is routed by its domain
 * only, so the answer says nothing about which accounts exist). No claimed domain, or one whose
 * organisation has no connection: 404 `ssoNotRecognized`. The request is stored before the
 * address is answered, so its answer can be tied to it (InResponseTo, OIDC state) on any instance.
 */
export async function startSso(
  deps: Deps,
  clients: { oidc: SsoOidcClients; saml: SamlThreads },
  input: { email: string; state?: string | undefined; clientAuthenticationPeriodId?: string | undefined },
  meta: RequestMeta,
  /** The SHA-256 of the browser's binding cookie (sso.binding.ts). */
  bindingHash: string,
): Promise<string> {
  const emailKey = normalizeEmail(input.email);
  const claim = await findDomain(deps.db, emailDomain(emailKey));
  const connection = claim === undefined ? undefined : await findConnectionOfOrg(deps.db, claim.org_id);
  if (connection === undefined) throw new AppError('ssoNotRecognized');
  const { clientKind, returnUrl } = parseClientState(deps, input.state);
  const now = deps.clock.now();
  const request: SsoRequestRow = {
    id: '',
    connection_id: connection.id,
    client_kind: clientKind,
    return_url: returnUrl,
    nonce: null,
    code_verifier: null,
    // A desktop client's token is handed to the app, which holds no cookie of this browser.
    // The token goes to the app (the desktop client, or a return address in an app's scheme),
    // which exchanges it without this browser's cookies: a desktop hand-off, not browser-bound.
    binding_hash: clientKind === 'native' || (returnUrl !== null && isAppSchemeUrl(returnUrl)) ? DESKTOP_HANDOFF : bindingHash,
    created_at: now,
    expires_at: now + SSO_REQUEST_LIFETIME_MS,
    used_at: null,
  };
  let url: string;
  try {
    if (connection.kind === 'saml') {
      // An xs:ID must not start with a digit: an underscore, then 160 random bits in hex.
      request.id = `_${randomBytes(20).toString('hex')}`;
      url = await clients.saml.authnRequestUrl(samlSettings(deps, connection), { requestId: request.id, relayState: returnUrl ?? '' });
    } else {
      const state = randomToken();
      request.id = sha256Hex(state);
      request.nonce = randomToken();
      request.code_verifier = randomToken();
      url = await clients.oidc.client(connection).authorizationUrl({ state, nonce: request.nonce, codeVerifier: request.code_verifier });
    }
  } catch (error) {
    // A connection this service cannot use answers as an unknown one would, and is logged.
    if (error instanceof SsoFailure || (error instanceof AppError && error.code === 'unavailable')) {
      await inTransaction(deps, (uow) =>
        recordAudit(uow, { type: 'sso.refused', meta, emailKey, detail: { code: '1005', reason: error.message, connectionId: connection.id } }),
      );
      throw new AppError('ssoNotRecognized', { cause: error });
    }
    throw error;
  }
  await forgetExpiredRequests(deps);
  await inTransaction(deps, async (uow) => {
    await insertRequest(uow.db, request);
    const detail = withClientPeriod({ connectionId: connection.id, kind: connection.kind }, input.clientAuthenticationPeriodId);
    await recordAudit(uow, { type: 'sso.started', meta, emailKey, detail });
  });
  return url;
}

/** Where the browser goes after a failure: the landing page with spec §8's code, audited. */
export async function failureLanding(deps: Deps, failure: SsoFailure, context: { connectionId: string; meta: RequestMeta }): Promise<string> {
  await inTransaction(deps, (uow) =>
    recordAudit(uow, {
      type: 'sso.refused',
      meta: context.meta,
      detail: { code: failure.code, reason: failure.reason.slice(0, 300), connectionId: context.connectionId },
    }),
  );
  return landing({ code: failure.code });
}

function landing(params: { code: SsoLandingCode } | { transferToken: string; native: boolean; returnUrl: string | null }): string {
  const query = new URLSearchParams();
  if ('code' in params) query.set('code', params.code);
  else {
    query.set('transferToken', params.transferToken);
    if (params.native) query.set('native', 'true');
    if (params.returnUrl !== null) query.set('returnUrl', params.returnUrl);
  }
  return `${ROUTES.ssoLanding}?${query.toString()}`;
}

/**
 * A validated identity becomes an account and a single-use transfer token (decision 0019's
 * mechanism): the landing page hands it to the desktop app or to `/ssol/:transferToken`. The
 * browser never carries a session cookie out of the provider's cross-site POST.
 */
/**
 * The identity as it may be stored (lib/provider-claims.ts): a subject no one else can share and
 * the database can hold, or the answer is refused (1002); names cut or left out; an email holding
 * a control character is no valid email (1003 where one is needed).
 */
function usableIdentity(asserted: SsoIdentity): SsoIdentity {
  const subject = usableSubject(asserted.subject);
  if (subject === undefined) throw new SsoFailure('1002', 'no usable subject (NameID or sub)');
  const email = asserted.email === undefined || hasControlCharacters(asserted.email) ? undefined : asserted.email;
  return {
    subject,
    email,
    ...(asserted.emailUnverified === true ? { emailUnverified: true } : {}),
    givenName: assertedName(asserted.givenName),
    familyName: assertedName(asserted.familyName),
  };
}

export async function completeSso(
  deps: Deps,
  connection: SsoConnectionRow,
  asserted: SsoIdentity,
  request: SsoRequestContext,
  meta: RequestMeta,
): Promise<string> {
  const identity = usableIdentity(asserted);
  const returning = await signInReturningMember(deps, connection, identity, meta, request.bindingHash);
  const transferToken = returning?.transferToken ?? (await resolveWithTransferToken(deps, connection, identity, meta, request.bindingHash));
  return landing({ transferToken, native: request.clientKind === 'native', returnUrl: request.returnUrl });
}

/** What a provider's answer carries on from the request it answers (none for an unsolicited one). */
export interface SsoRequestContext {
  clientKind: string | null;
  returnUrl: string | null;
  /** The starting browser's binding (sso.binding.ts), which the transfer token takes. */
  bindingHash: string | null;
}

/** Every case but a returning member's: `resolveSsoAccount` decides it, then the transfer token in the same transaction. */
async function resolveWithTransferToken(
  deps: Deps,
  connection: SsoConnectionRow,
  identity: SsoIdentity,
  meta: RequestMeta,
  bindingHash: string | null,
): Promise<string> {
  const { completed } = await resolveSsoAccount(deps, connection, identity, meta, async (uow, { user }) => {
    const token = await issueToken(uow, { userId: user.id, purpose: 'transfer', bindingHash });
    await recordAudit(uow, transferIssued(user, connection, meta));
    return token;
  });
  return completed;
}

/** The connection a response names in its address; a removed one is a misconfiguration (1005). */
export async function connectionFor(deps: Deps, connectionId: string, kind: SsoConnectionRow['kind']): Promise<SsoConnectionRow> {
  const connection = await findConnectionById(deps.db, connectionId);
  if (connection === undefined || connection.kind !== kind) throw new SsoFailure('1005', 'no such connection');
  return connection;
}
