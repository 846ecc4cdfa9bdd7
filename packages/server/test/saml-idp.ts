import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { inflateRawSync } from 'node:zlib';
import { SignedXml } from 'xml-crypto';

/**
 * A SAML identity provider made of node:crypto and xml-crypto, for server tests that must send
 * what no conforming IdP would: forged, tampered, wrapped and replayed responses. Keys and
 * self-signed certificates are test fixtures (made once with openssl, valid for a century).
 */
const fixture = (name: string) => readFileSync(new URL(`./fixtures/saml/${name}`, import.meta.url), 'utf8');

export interface KeyPair {
  key: string;
  cert: string;
}
export const IDP_KEYS: KeyPair = { key: fixture('idp-key.pem'), cert: fixture('idp-cert.pem') };
export const ROLLOVER_KEYS: KeyPair = { key: fixture('rollover-key.pem'), cert: fixture('rollover-cert.pem') };
export const ATTACKER_KEYS: KeyPair = { key: fixture('attacker-key.pem'), cert: fixture('attacker-cert.pem') };

export const IDP_ENTITY_ID = 'https://idp.corp.example/saml';
export const IDP_SSO_URL = 'https://idp.corp.example/sso';

export function certBody(pem: string): string {
  return pem.replace(/-----[A-Z ]+-----/g, '').replace(/\s+/g, '');
}

/** IdP metadata as Okta, Entra ID or SimpleSAMLphp publish it. */
export function idpMetadata(options: { entityId?: string; certs?: string[]; ssoUrl?: string } = {}): string {
  const keys = (options.certs ?? [IDP_KEYS.cert])
    .map(
      (cert) =>
        `<md:KeyDescriptor use="signing"><ds:KeyInfo xmlns:ds="http://www.w3.org/2000/09/xmldsig#"><ds:X509Data><ds:X509Certificate>${certBody(cert)}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>`,
    )
    .join('');
  return `<?xml version="1.0"?>
<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="${options.entityId ?? IDP_ENTITY_ID}">
  <md:IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">
    ${keys}
    <md:KeyDescriptor use="encryption"><ds:KeyInfo xmlns:ds="http://www.w3.org/2000/09/xmldsig#"><ds:X509Data><ds:X509Certificate>${certBody(ATTACKER_KEYS.cert)}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>
    <md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="${options.ssoUrl ?? IDP_SSO_URL}/post"/>
    <md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="${options.ssoUrl ?? IDP_SSO_URL}"/>
  </md:IDPSSODescriptor>
</md:EntityDescriptor>`;
}

/** The AuthnRequest inside an HTTP-Redirect address: its ID and what it says. */
export function readAuthnRequest(url: string): { id: string; xml: string; relayState: string | null } {
  const parsed = new URL(url);
  const encoded = parsed.searchParams.get('SAMLRequest') ?? '';
  const xml = inflateRawSync(Buffer.from(encoded, 'base64')).toString('utf8');
  const id = /\sID="([^"]+)"/.exec(xml)?.[1] ?? '';
  return { id, xml, relayState: parsed.searchParams.get('RelayState') };
}

export interface AssertionOptions {
  acsUrl: string;
  audience: string;
  nameId: string;
  email?: string | null;
  givenName?: string;
  familyName?: string;
  inResponseTo?: string | null;
  now: number;
  issuer?: string;
  recipient?: string;
  destination?: string | null;
  notBefore?: number;
  notOnOrAfter?: number;
  assertionId?: string;
  responseId?: string;
  /** Raw XML put inside NameID instead of the escaped nameId (comment attacks). */
  rawNameId?: string;
}

const iso = (ms: number) => new Date(ms).toISOString();
export const newId = () => `_${randomBytes(16).toString('hex')}`;

export function assertionXml(o: AssertionOptions): string {
  const id = o.assertionId ?? newId();
  const inResponseTo = o.inResponseTo === null || o.inResponseTo === undefined ? '' : ` InResponseTo="${o.inResponseTo}"`;
  const notBefore = o.notBefore ?? o.now - 30_000;
  const notOnOrAfter = o.notOnOrAfter ?? o.now + 5 * 60_000;
  const attributes: string[] = [];
  if (o.email !== null) attributes.push(attribute('email', o.email ?? o.nameId));
  if (o.givenName !== undefined) attributes.push(attribute('givenName', o.givenName));
  if (o.familyName !== undefined) attributes.push(attribute('sn', o.familyName));
  return (
    `<saml:Assertion xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="${id}" Version="2.0" IssueInstant="${iso(o.now)}">` +
    `<saml:Issuer>${o.issuer ?? IDP_ENTITY_ID}</saml:Issuer>` +
    `<saml:Subject><saml:NameID Format="urn:oasis:names:tc:SAML:2.0:nameid-format:persistent">${o.rawNameId ?? o.nameId}</saml:NameID>` +
    `<saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer"><saml:SubjectConfirmationData NotOnOrAfter="${iso(notOnOrAfter)}" Recipient="${o.recipient ?? o.acsUrl}"${inResponseTo}/></saml:SubjectConfirmation></saml:Subject>` +
    `<saml:Conditions NotBefore="${iso(notBefore)}" NotOnOrAfter="${iso(notOnOrAfter)}"><saml:AudienceRestriction><saml:Audience>${o.audience}</saml:Audience></saml:AudienceRestriction></saml:Conditions>` +
    `<saml:AuthnStatement AuthnInstant="${iso(o.now)}" SessionIndex="${newId()}"><saml:AuthnContext><saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:Password</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement>` +
    (attributes.length === 0 ? '' : `<saml:AttributeStatement>${attributes.join('')}</saml:AttributeStatement>`) +
    `</saml:Assertion>`
  );
}

function attribute(name: string, value: string): string {
  return `<saml:Attribute Name="${name}"><saml:AttributeValue>${value}</saml:AttributeValue></saml:Attribute>`;
}

export function responseXml(o: AssertionOptions, inner: string): string {
  const inResponseTo = o.inResponseTo === null || o.inResponseTo === undefined ? '' : ` InResponseTo="${o.inResponseTo}"`;
  const destination = o.destination === null ? '' : ` Destination="${o.destination ?? o.acsUrl}"`;
  return (
    `<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="${o.responseId ?? newId()}" Version="2.0" IssueInstant="${iso(o.now)}"${destination}${inResponseTo}>` +
    `<saml:Issuer>${o.issuer ?? IDP_ENTITY_ID}</saml:Issuer>` +
    `<samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status>` +
    inner +
    `</samlp:Response>`
  );
}

/**
 * Signs the element with this ID (enveloped, exclusive c14n, RSA-SHA256), placing the signature
 * right after that element's Issuer, as the schema wants. `keyInfoCert` puts a certificate in
 * KeyInfo (an attacker's own, to see it is never trusted).
 */
export function sign(xml: string, elementId: string, keys: KeyPair, options: { keyInfoCert?: string; placeIn?: string } = {}): string {
  const signer = new SignedXml({
    privateKey: keys.key,
    publicCert: options.keyInfoCert ?? keys.cert,
    signatureAlgorithm: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
    canonicalizationAlgorithm: 'http://www.w3.org/2001/10/xml-exc-c14n#',
  });
  signer.addReference({
    xpath: `//*[@ID='${elementId}']`,
    digestAlgorithm: 'http://www.w3.org/2001/04/xmlenc#sha256',
    transforms: ['http://www.w3.org/2000/09/xmldsig#enveloped-signature', 'http://www.w3.org/2001/10/xml-exc-c14n#'],
  });
  const host = options.placeIn ?? elementId;
  signer.computeSignature(xml, { location: { reference: `//*[@ID='${host}']/*[local-name(.)='Issuer']`, action: 'after' } });
  return signer.getSignedXml();
}

export function idOf(xml: string, localName: 'Assertion' | 'Response'): string {
  const match = new RegExp(`<(?:saml|samlp):${localName}\\b[^>]*\\sID="([^"]+)"`).exec(xml);
  if (!match?.[1]) throw new Error(`no ${localName} ID`);
  return match[1];
}

/** A response as an honest IdP sends it: the assertion signed (and, with signResponse, the response too). */
export function signedResponse(o: AssertionOptions, options: { keys?: KeyPair; signResponse?: boolean } = {}): string {
  const keys = options.keys ?? IDP_KEYS;
  const assertion = assertionXml(o);
  const signedAssertion = sign(assertion, idOf(assertion, 'Assertion'), keys);
  const response = responseXml(o, signedAssertion);
  return options.signResponse === true ? sign(response, idOf(response, 'Response'), keys) : response;
}

export const encode = (xml: string) => Buffer.from(xml, 'utf8').toString('base64');
