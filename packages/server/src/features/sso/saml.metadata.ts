import { X509Certificate } from 'node:crypto';
import type * as NodeSaml from '@node-saml/node-saml';
import { loadOnUse } from '../../lib/load-on-use.js';
import { NS, allElements, childElements, parseUntrustedXml, soleText } from './saml.xml.js';

/** What a SAML connection needs from the IdP's metadata (decision 0022). */
export interface IdpMetadata {
  entityId: string;
  /** The IdP's SingleSignOnService for the HTTP-Redirect binding: where the AuthnRequest goes. */
  ssoUrl: string;
  /** Every signing certificate published (rollover), PEM. */
  certificates: string[];
}

export class MetadataError extends Error {
  override name = 'MetadataError';
}

const REDIRECT_BINDING = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect';

/** Base64 DER from metadata → PEM, refused unless node:crypto reads it as an X.509 certificate. */
export function certificateToPem(base64: string): string {
  const body = base64.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]+=*$/.test(body)) throw new MetadataError('a signing certificate is not base64');
  const pem = `-----BEGIN CERTIFICATE-----\n${body.replace(/(.{64})/g, '$1\n').replace(/\n$/, '')}\n-----END CERTIFICATE-----\n`;
  try {
    new X509Certificate(pem);
  } catch (error) {
    throw new MetadataError('a signing certificate cannot be read', { cause: error });
  }
  return pem;
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:';
  } catch {
    return false;
  }
}

/**
 * Reads an IdP's SAML metadata: the one EntityDescriptor with an IDPSSODescriptor (an aggregate
 * with several IdPs is refused rather than guessed from), its entity ID, its HTTP-Redirect single
 * sign-on address, and its signing keys (KeyDescriptor use="signing" or without a use).
 */
export function parseIdpMetadata(xml: string): IdpMetadata {
  let doc;
  try {
    doc = parseUntrustedXml(xml, { allowComments: true });
  } catch (error) {
    throw new MetadataError(`the metadata is not acceptable XML (${error instanceof Error ? error.message : String(error)})`, { cause: error });
  }
  const idps = allElements(doc, NS.metadata, 'IDPSSODescriptor');
  if (idps.length !== 1)
    throw new MetadataError(idps.length === 0 ? 'the metadata describes no identity provider' : 'the metadata describes several identity providers');
  const idp = idps[0] as Element;
  const entity = idp.parentNode as Element | null;
  const entityId = entity?.getAttribute('entityID')?.trim() ?? '';
  if (entity === null || entity.localName !== 'EntityDescriptor' || entityId === '') throw new MetadataError('the identity provider has no entityID');

  const sso = childElements(idp, NS.metadata, 'SingleSignOnService').find((service) => service.getAttribute('Binding') === REDIRECT_BINDING);
  const ssoUrl = sso?.getAttribute('Location')?.trim() ?? '';
  if (!isHttpUrl(ssoUrl)) throw new MetadataError('the identity provider offers no HTTP-Redirect SingleSignOnService');

  const certificates: string[] = [];
  for (const descriptor of childElements(idp, NS.metadata, 'KeyDescriptor')) {
    const use = descriptor.getAttribute('use');
    if (use !== null && use !== '' && use !== 'signing') continue;
    for (const cert of allElements(descriptor, NS.dsig, 'X509Certificate')) {
      const text = soleText(cert);
      if (text !== undefined) certificates.push(certificateToPem(text));
    }
  }
  if (certificates.length === 0) throw new MetadataError('the identity provider publishes no signing certificate');
  return { entityId, ssoUrl, certificates: [...new Set(certificates)] };
}

/** This service's metadata for one connection, to give the IdP's administrator. */
export function serviceProviderMetadata(input: { entityId: string; acsUrl: string }): string {
  return loadOnUse<typeof NodeSaml>('@node-saml/node-saml').generateServiceProviderMetadata({
    issuer: input.entityId,
    callbackUrl: input.acsUrl,
    wantAssertionsSigned: true,
    identifierFormat: null,
  });
}
