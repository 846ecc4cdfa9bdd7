// The SAML identity provider the harness plays for an organisation's connection (decision 0022):
// its metadata, and honest responses signed as the server tests' IdP signs them (test/saml-idp.ts:
// the assertion signed with xml-crypto, enveloped, exclusive c14n, RSA-SHA256 and SHA-256, the
// signature after the assertion's Issuer). Its key and certificate are made for each run.
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inflateRawSync } from 'node:zlib';
import { SignedXml } from 'xml-crypto';
import { selfSignedCertificate } from './certificates.mjs';

const ENTITY_ID = 'https://idp.bench-corp.example/saml';
const SSO_URL = 'https://idp.bench-corp.example/sso';
const RSA_SHA256 = 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256';
const SHA256 = 'http://www.w3.org/2001/04/xmlenc#sha256';
const EXC_C14N = 'http://www.w3.org/2001/10/xml-exc-c14n#';
/** How long a response may be presented: longer than a phase, so one signed before it still counts. */
const VALID_MS = 10 * 60_000;

const iso = (ms) => new Date(ms).toISOString();
const newId = () => `_${randomBytes(16).toString('hex')}`;
const certBody = (pem) => pem.replace(/-----[A-Z ]+-----/g, '').replace(/\s+/g, '');

/** The IdP's key and certificate in `dir`, and its metadata as a file for `sso add-saml`. */
export function samlIdp(dir) {
  const keys = selfSignedCertificate(dir, 'saml-idp', { subject: 'Foyer bench SAML IdP' });
  const metadataFile = join(dir, 'saml-idp-metadata.xml');
  writeFileSync(
    metadataFile,
    `<?xml version="1.0"?>
<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="${ENTITY_ID}">
  <md:IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">
    <md:KeyDescriptor use="signing"><ds:KeyInfo xmlns:ds="http://www.w3.org/2000/09/xmldsig#"><ds:X509Data><ds:X509Certificate>${certBody(keys.cert)}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>
    <md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="${SSO_URL}"/>
  </md:IDPSSODescriptor>
</md:EntityDescriptor>
`,
  );
  return { key: keys.key, cert: keys.cert, metadataFile };
}

/** The ID of the AuthnRequest in an HTTP-Redirect address (the SSO start call's answer). */
export function authnRequestId(url) {
  const encoded = new URL(url).searchParams.get('SAMLRequest') ?? '';
  const xml = inflateRawSync(Buffer.from(encoded, 'base64')).toString('utf8');
  const id = /\sID="([^"]+)"/.exec(xml)?.[1];
  if (!id) throw new Error(`no AuthnRequest ID in ${url.slice(0, 200)}`);
  return id;
}

function assertionXml({ id, acsUrl, audience, nameId, email, inResponseTo, now }) {
  const attribute = (name, value) => `<saml:Attribute Name="${name}"><saml:AttributeValue>${value}</saml:AttributeValue></saml:Attribute>`;
  return (
    `<saml:Assertion xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="${id}" Version="2.0" IssueInstant="${iso(now)}">` +
    `<saml:Issuer>${ENTITY_ID}</saml:Issuer>` +
    `<saml:Subject><saml:NameID Format="urn:oasis:names:tc:SAML:2.0:nameid-format:persistent">${nameId}</saml:NameID>` +
    `<saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer"><saml:SubjectConfirmationData NotOnOrAfter="${iso(now + VALID_MS)}" Recipient="${acsUrl}" InResponseTo="${inResponseTo}"/></saml:SubjectConfirmation></saml:Subject>` +
    `<saml:Conditions NotBefore="${iso(now - 30_000)}" NotOnOrAfter="${iso(now + VALID_MS)}"><saml:AudienceRestriction><saml:Audience>${audience}</saml:Audience></saml:AudienceRestriction></saml:Conditions>` +
    `<saml:AuthnStatement AuthnInstant="${iso(now)}" SessionIndex="${newId()}"><saml:AuthnContext><saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:Password</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement>` +
    `<saml:AttributeStatement>${attribute('email', email)}${attribute('givenName', 'Bench')}${attribute('sn', 'Member')}</saml:AttributeStatement>` +
    `</saml:Assertion>`
  );
}

/**
 * The IdP's answer to one AuthnRequest (`inResponseTo`), signing `person` in: a Response with a
 * fresh ID around an assertion with a fresh ID, the assertion signed with the IdP's key.
 * Base64, as the HTTP-POST binding's SAMLResponse carries it.
 */
export function signedResponse(idp, { acsUrl, audience, person, inResponseTo, now = Date.now() }) {
  const assertionId = newId();
  const signer = new SignedXml({ privateKey: idp.key, publicCert: idp.cert, signatureAlgorithm: RSA_SHA256, canonicalizationAlgorithm: EXC_C14N });
  signer.addReference({
    xpath: `//*[@ID='${assertionId}']`,
    digestAlgorithm: SHA256,
    transforms: ['http://www.w3.org/2000/09/xmldsig#enveloped-signature', EXC_C14N],
  });
  signer.computeSignature(assertionXml({ id: assertionId, acsUrl, audience, nameId: person.nameId, email: person.email, inResponseTo, now }), {
    location: { reference: `//*[@ID='${assertionId}']/*[local-name(.)='Issuer']`, action: 'after' },
  });
  const xml =
    `<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="${newId()}" Version="2.0" IssueInstant="${iso(now)}" Destination="${acsUrl}" InResponseTo="${inResponseTo}">` +
    `<saml:Issuer>${ENTITY_ID}</saml:Issuer>` +
    `<samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status>` +
    signer.getSignedXml() +
    `</samlp:Response>`;
  return Buffer.from(xml, 'utf8').toString('base64');
}
