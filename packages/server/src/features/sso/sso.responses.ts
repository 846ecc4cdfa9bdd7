import { isAppError } from '../../lib/errors.js';
import type { Deps } from '../../deps.js';
import { sha256Hex } from '../../lib/crypto.js';
import { unitOfWork } from '../../lib/unit-of-work.js';
import type { RequestMeta } from '../audit/audit.service.js';
import type { SamlThreads } from './saml.thread.js';
import { SsoFailure } from './sso.failure.js';
import type { SsoOidcClients } from './sso.oidc.js';
import { rememberAssertion, spendRequest } from './sso.repo.js';
import { completeSso, connectionFor, failureLanding, samlSettings, type SsoRequestContext } from './sso.service.js';

/** Runs one answer of an identity provider; any SsoFailure becomes the landing page with its code. */
async function landingOf(deps: Deps, connectionId: string, meta: RequestMeta, work: () => Promise<string>): Promise<string> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof SsoFailure) return failureLanding(deps, error, { connectionId, meta });
    throw error;
  }
}

/**
 * The SAML HTTP-POST binding's assertion consumer (decision 0022). After the response itself
 * validated (saml.response.ts, on a SAML thread: saml.thread.ts):
 * - `InResponseTo` must name a request this service issued for this connection, unspent and
 *   under ten minutes old; spending it is one conditional UPDATE, so it works once on any
 *   instance. Without it the response is unsolicited (IdP-initiated), refused unless the
 *   connection accepts those; then only a RelayState that passes the allow-list is followed.
 * - the assertion's ID is remembered in the database until it expires: the same assertion
 *   posted again, to this instance or another, is refused.
 */
export async function consumeSamlResponse(
  deps: Deps,
  saml: SamlThreads,
  input: { connectionId: string; samlResponse: string | undefined; relayState: string | undefined },
  meta: RequestMeta,
): Promise<string> {
  return landingOf(deps, input.connectionId, meta, async () => {
    const connection = await connectionFor(deps, input.connectionId, 'saml');
    if (input.samlResponse === undefined || input.samlResponse === '') throw new SsoFailure('1002', 'no SAMLResponse');
    const { db, now } = unitOfWork(deps);
    const assertion = await saml.validateResponse(samlSettings(deps, connection), input.samlResponse, now);
    let request: SsoRequestContext;
    if (assertion.inResponseTo === undefined) {
      // No request, so no browser to bind to: why a connection must opt in to these.
      if (connection.saml_allow_unsolicited !== 1) throw new SsoFailure('1002', 'unsolicited response');
      request = { clientKind: null, returnUrl: deps.redirects.allowed(input.relayState) ?? null, bindingHash: null };
    } else {
      const spent = await spendRequest(db, { id: assertion.inResponseTo, connectionId: connection.id, now });
      if (spent === undefined) throw new SsoFailure('1002', 'InResponseTo names no waiting request of this connection');
      request = { clientKind: spent.client_kind, returnUrl: spent.return_url, bindingHash: spent.binding_hash };
    }
    if (!(await rememberAssertion(db, { connectionId: connection.id, assertionId: assertion.assertionId, expiresAt: assertion.expiresAt }))) {
      throw new SsoFailure('1002', 'assertion replayed');
    }
    const identity = { subject: assertion.nameId, email: assertion.email, givenName: assertion.givenName, familyName: assertion.familyName };
    return completeSso(deps, connection, identity, request, meta);
  });
}

/**
 * The library's own words for a refusal, from the error's causes (openid-client's summary, then
 * oauth4webapi's, which names the claim or check that failed): for the audit log, never the page.
 */
function causes(error: Error): string {
  const messages: string[] = [];
  for (let cause = error.cause; cause instanceof Error && messages.length < 3; cause = cause.cause) messages.push(cause.message);
  return messages.length === 0 ? '' : `: ${messages.join(': ')}`;
}

/**
 * The OpenID Connect callback: the `state` must name a request of this connection (single use,
 * ten minutes), whose PKCE verifier and nonce the exchange needs; the provider's own error (the
 * person cancelled, the client is not allowed) is a refusal too.
 */
export async function consumeOidcCallback(
  deps: Deps,
  oidc: SsoOidcClients,
  input: { connectionId: string; code: string | undefined; state: string | undefined; error: string | undefined },
  meta: RequestMeta,
): Promise<string> {
  return landingOf(deps, input.connectionId, meta, async () => {
    const connection = await connectionFor(deps, input.connectionId, 'oidc');
    if (input.state === undefined || input.state === '') throw new SsoFailure('1002', 'no state');
    const { db, now } = unitOfWork(deps);
    const request = await spendRequest(db, { id: sha256Hex(input.state), connectionId: connection.id, now });
    if (request === undefined || request.nonce === null || request.code_verifier === null) throw new SsoFailure('1002', 'state names no waiting request');
    if (input.error !== undefined) throw new SsoFailure('1002', `the provider answered ${input.error.slice(0, 100)}`);
    if (input.code === undefined || input.code === '') throw new SsoFailure('1002', 'no code');
    let identity;
    try {
      identity = await oidc
        .client(connection)
        .exchange({ code: input.code, state: input.state, codeVerifier: request.code_verifier, nonce: request.nonce });
    } catch (error) {
      if (isAppError(error) && error.code === 'unavailable') throw new SsoFailure('1005', 'the provider cannot be reached', { cause: error });
      if (isAppError(error)) throw new SsoFailure('1002', `the code or ID token was refused${causes(error)}`, { cause: error });
      throw error;
    }
    return completeSso(
      deps,
      connection,
      {
        subject: identity.subject,
        // A provider that says it did not verify the address asserts none (decision 0022): the
        // address could be anyone's. A provider that says nothing of it (Entra ID) vouches for it.
        email: identity.emailVerified === false ? undefined : identity.email,
        emailUnverified: identity.emailVerified === false && identity.email !== undefined,
        givenName: identity.givenName,
        familyName: identity.familyName,
      },
      { clientKind: request.client_kind, returnUrl: request.return_url, bindingHash: request.binding_hash },
      meta,
    );
  });
}
