import { isValidEmail } from '@foyer/contract/core';
import type * as NodeSaml from '@node-saml/node-saml';
import { loadOnUse } from '../../lib/load-on-use.js';
import { NS, UnsafeXmlError, childElements, elementsNamed, onlyChild, parseUntrustedXml, soleText } from './saml.xml.js';
import { SsoFailure } from './sso.failure.js';

/** At most this much clock difference between the IdP and this service (SAML timestamps). */
export const SAML_CLOCK_SKEW_MS = 3 * 60 * 1000;
/** A response larger than this is no honest sign-in (a few KB with certificates). */
const MAX_RESPONSE_BYTES = 48 * 1024;
const BEARER = 'urn:oasis:names:tc:SAML:2.0:cm:bearer';
const SUCCESS = 'urn:oasis:names:tc:SAML:2.0:status:Success';
const EMAIL_FORMAT = 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress';
/** The default when a NameID names no format; Okta and Google Workspace send it for an email too. */
const UNSPECIFIED_FORMAT = 'urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified';

/**
 * The attribute names IdPs put an email and names under (SimpleSAMLphp, Okta, Entra ID, ADFS,
 * Google, Keycloak), matched against an attribute's Name or else its FriendlyName.
 */
const EMAIL_ATTRIBUTES = [
  'email',
  'mail',
  'emailaddress',
  'urn:oid:0.9.2342.19200300.100.1.3',
  // PKCS #9 emailAddress: Keycloak's "X500 email" mapper.
  'urn:oid:1.2.840.113549.1.9.1',
  'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress',
];
const GIVEN_NAME_ATTRIBUTES = [
  'givenname',
  'firstname',
  'first_name',
  'urn:oid:2.5.4.42',
  'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/givenname',
];
const SURNAME_ATTRIBUTES = ['sn', 'surname', 'lastname', 'last_name', 'urn:oid:2.5.4.4', 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/surname'];

export interface SamlConnectionSettings {
  connectionId: string;
  idpEntityId: string;
  idpSsoUrl: string;
  certificates: string[];
  spEntityId: string;
  acsUrl: string;
}

/** What a valid response says, read from the signed assertion only. */
export interface SamlAssertion {
  assertionId: string;
  nameId: string;
  email: string | undefined;
  givenName: string | undefined;
  familyName: string | undefined;
  /** The request this answers; undefined for an unsolicited (IdP-initiated) response. */
  inResponseTo: string | undefined;
  /** Until when the assertion could be presented: how long its ID is remembered against replay. */
  expiresAt: number;
}

function samlClient(settings: SamlConnectionSettings, options: { responseSigned: boolean; requestId?: string }): NodeSaml.SAML {
  // The SAML libraries are loaded with the first SAML sign-in, not by every service at start.
  const { SAML, ValidateInResponseTo } = loadOnUse<typeof NodeSaml>('@node-saml/node-saml');
  return new SAML({
    // The configured certificates and nothing else: a key or certificate inside the response's
    // KeyInfo is never trusted (xml-crypto 6 ignores KeyInfo unless told otherwise).
    idpCert: settings.certificates,
    issuer: settings.spEntityId,
    audience: settings.spEntityId,
    callbackUrl: settings.acsUrl,
    entryPoint: settings.idpSsoUrl,
    idpIssuer: settings.idpEntityId,
    // The assertion must carry its own signature; a response signature, when present, must
    // verify too. A signed response around an unsigned assertion is refused: some IdPs' response
    // signatures reference an element other than the one a naive reader consumes.
    wantAssertionsSigned: true,
    wantAuthnResponseSigned: options.responseSigned,
    // InResponseTo and every timestamp are checked below against the database and the service's
    // own clock, so node-saml's in-memory request cache and its wall-clock checks stay off.
    validateInResponseTo: ValidateInResponseTo.never,
    acceptedClockSkewMs: -1,
    identifierFormat: null,
    disableRequestedAuthnContext: true,
    ...(options.requestId === undefined ? {} : { generateUniqueId: () => options.requestId ?? '' }),
  });
}

/** The address of the IdP's sign-on page with a fresh AuthnRequest (HTTP-Redirect binding). */
export async function authnRequestUrl(settings: SamlConnectionSettings, input: { requestId: string; relayState: string }): Promise<string> {
  return samlClient(settings, { responseSigned: false, requestId: input.requestId }).getAuthorizeUrlAsync(input.relayState, undefined, {});
}

function refuse(reason: string): never {
  throw new SsoFailure('1002', reason);
}

function instant(value: string | null, what: string): number | undefined {
  if (value === null || value === '') return undefined;
  const at = Date.parse(value);
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/.test(value) || Number.isNaN(at)) refuse(`${what} is not a UTC instant`);
  return at;
}

/**
 * A real response has well under a hundred elements, attribute values included, and a few levels.
 * node-saml's lookups by ID cost more than linear time in the number of elements (8,500 empty
 * elements within the size limit took a second of CPU before the signature was checked), so a
 * larger or deeper document is refused before any of them.
 */
const MAX_ELEMENTS = 1000;
const MAX_DEPTH = 32;

function depthOf(element: Element): number {
  let depth = 0;
  for (let node: Node | null = element; node !== null && depth <= MAX_DEPTH; node = node.parentNode) depth += 1;
  return depth;
}

/** Signature and digest methods accepted (SHA-1, still understood by xml-crypto, is not). */
const SIGNATURE_METHODS = new Set([
  'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
  'http://www.w3.org/2001/04/xmldsig-more#rsa-sha512',
  'http://www.w3.org/2007/05/xmldsig-more#sha256-rsa-MGF1',
]);
const DIGEST_METHODS = new Set(['http://www.w3.org/2001/04/xmlenc#sha256', 'http://www.w3.org/2001/04/xmlenc#sha512']);

/** An attribute that a signature reference may name an element by: `ID`, `Id`, `id`, in any namespace (`xml:id`, `wsu:Id`), not `xmlns:id`. */
const isIdAttribute = (attribute: Attr) =>
  (attribute.localName ?? attribute.name).toLowerCase() === 'id' && attribute.namespaceURI !== 'http://www.w3.org/2000/xmlns/';

/**
 * The shape checks made before any signature is looked at. Each closes a published way of making
 * a verifier check one element while the application reads another (XML signature wrapping,
 * XSW1–XSW8 of Somorovsky et al. 2012, "On Breaking SAML", and SAML Raider's variants). Elements
 * are counted by local name in any namespace, as node-saml's XPath finds them, so an `Assertion`
 * or `Signature` in a made-up namespace cannot hide from one reader and not the other:
 * - no EncryptedAssertion (this service holds no decryption key);
 * - exactly one Assertion in the whole document, in the SAML namespace and a direct child of the
 *   Response (XSW variants hide the genuine signed assertion in Extensions, in the Signature's
 *   Object, inside a forged assertion, or beside one);
 * - no Response inside the Response (XSW1 and XSW2 keep the signed original there);
 * - no two elements sharing an ID (`ID`, `Id` or `id`, namespaced or not): a signature reference
 *   must name one element;
 * - signatures only directly under the Response and the Assertion, at most one each, each with
 *   one reference to its own parent (checked again by node-saml), by RSA with SHA-256 or SHA-512.
 */
function checkShape(doc: Document): { response: Element; assertion: Element; responseSigned: boolean } {
  const response = doc.documentElement;
  if (response === null || response.namespaceURI !== NS.protocol || response.localName !== 'Response') refuse('not a SAML Response');
  const elements = Array.from(doc.getElementsByTagName('*'));
  if (elements.length > MAX_ELEMENTS) refuse(`${elements.length} elements`);
  if (elements.some((element) => depthOf(element) > MAX_DEPTH)) refuse(`elements nested deeper than ${MAX_DEPTH}`);
  if (elementsNamed(doc, 'Response').length !== 1) refuse('a Response inside the Response');
  if (elementsNamed(doc, 'EncryptedAssertion').length > 0) refuse('encrypted assertion, and no decryption key is configured');
  const assertions = elementsNamed(doc, 'Assertion');
  if (assertions.length !== 1) refuse(`${assertions.length} assertions`);
  const assertion = assertions[0] as Element;
  if (assertion.namespaceURI !== NS.assertion) refuse('the assertion is not in the SAML namespace');
  if (assertion.parentNode !== response) refuse('the assertion is not a child of the response');

  const ids = new Set<string>();
  for (const element of elements) {
    for (const attribute of Array.from(element.attributes)) {
      if (!isIdAttribute(attribute) || attribute.value === '') continue;
      if (ids.has(attribute.value)) refuse('two elements share an ID');
      ids.add(attribute.value);
    }
  }
  const signatures = elementsNamed(doc, 'Signature');
  const responseSignatures = childElements(response, NS.dsig, 'Signature');
  const assertionSignatures = childElements(assertion, NS.dsig, 'Signature');
  if (responseSignatures.length > 1 || assertionSignatures.length !== 1) refuse('the assertion is not signed exactly once');
  if (signatures.length !== responseSignatures.length + assertionSignatures.length) refuse('a signature in an unexpected place');
  for (const signature of signatures) {
    const parentId = (signature.parentNode as Element).getAttribute('ID') ?? '';
    const references = elementsNamed(signature, 'Reference');
    if (references.length !== 1 || parentId === '' || references[0]?.getAttribute('URI') !== `#${parentId}`) {
      refuse('a signature does not reference its own parent');
    }
    const methods = elementsNamed(signature, 'SignatureMethod').map((method) => method.getAttribute('Algorithm') ?? '');
    const digests = elementsNamed(signature, 'DigestMethod').map((method) => method.getAttribute('Algorithm') ?? '');
    if (methods.length !== 1 || !methods.every((method) => SIGNATURE_METHODS.has(method))) refuse(`signature method ${methods.join(' ')}`);
    if (digests.length !== 1 || !digests.every((digest) => DIGEST_METHODS.has(digest))) refuse(`digest method ${digests.join(' ')}`);
  }
  return { response, assertion, responseSigned: responseSignatures.length === 1 };
}

function attributeValue(assertion: Element, names: readonly string[]): string | undefined {
  for (const statement of childElements(assertion, NS.assertion, 'AttributeStatement')) {
    for (const attribute of childElements(statement, NS.assertion, 'Attribute')) {
      const name = (attribute.getAttribute('Name') ?? '').toLowerCase();
      const friendlyName = (attribute.getAttribute('FriendlyName') ?? '').toLowerCase();
      if (!names.includes(name) && !names.includes(friendlyName)) continue;
      const values = childElements(attribute, NS.assertion, 'AttributeValue');
      const value = values.length === 1 ? soleText(values[0] as Element) : undefined;
      if (value !== undefined) return value;
    }
  }
  return undefined;
}

/**
 * Validates an HTTP-POST `SAMLResponse` for one connection and reads the signed assertion
 * (decision 0022). Refusals throw SsoFailure 1002 with the reason for the audit log.
 *
 * node-saml verifies the signatures against the configured certificates, the audience and the
 * IdP issuer, and hands back the XML that the signature covers; every fact used afterwards is
 * read from that signed XML, never from the document as received. Checked here as well:
 * `Destination`, the bearer confirmation's `Recipient`, `NotBefore`/`NotOnOrAfter` of the
 * confirmation and of the conditions with at most three minutes of skew, and that the response's
 * `InResponseTo` agrees with the assertion's.
 */
export async function validateSamlResponse(settings: SamlConnectionSettings, samlResponse: string, now: number): Promise<SamlAssertion> {
  try {
    return await validate(settings, samlResponse, now);
  } catch (error) {
    // Whatever else a hostile document makes a parser or library throw is a refusal, not a 500.
    if (error instanceof SsoFailure) throw error;
    refuse(`unreadable: ${error instanceof Error ? error.message : String(error)}`);
  }
}

async function validate(settings: SamlConnectionSettings, samlResponse: string, now: number): Promise<SamlAssertion> {
  const compact = samlResponse.replace(/\s+/g, '');
  if (compact.length === 0 || compact.length > (MAX_RESPONSE_BYTES * 4) / 3 + 4 || !/^[A-Za-z0-9+/]+={0,2}$/.test(compact)) {
    refuse('SAMLResponse is not base64 of an acceptable size');
  }
  const xml = Buffer.from(compact, 'base64').toString('utf8');
  let doc: Document;
  try {
    doc = parseUntrustedXml(xml);
  } catch (error) {
    if (error instanceof UnsafeXmlError) refuse(error.message);
    throw error;
  }
  const { response, assertion: received, responseSigned } = checkShape(doc);

  // Optional on an unsigned Response (SAML Bindings §3.5.5.2); the signed Recipient is what binds
  // the assertion to this consumer. xmldom answers '' for an absent attribute, hence hasAttribute.
  if (response.hasAttribute('Destination') && response.getAttribute('Destination') !== settings.acsUrl) {
    refuse('Destination is not this assertion consumer');
  }
  const status = onlyChild(response, NS.protocol, 'Status');
  const statusCode = status === undefined ? undefined : onlyChild(status, NS.protocol, 'StatusCode');
  if (statusCode?.getAttribute('Value') !== SUCCESS) refuse(`status ${statusCode?.getAttribute('Value') ?? 'missing'}`);
  const responseIssuers = childElements(response, NS.assertion, 'Issuer');
  if (responseIssuers.some((issuer) => soleText(issuer) !== settings.idpEntityId) || responseIssuers.length > 1) {
    refuse('the response names another issuer');
  }

  let signedXml: string;
  try {
    const { profile } = await samlClient(settings, { responseSigned }).validatePostResponseAsync({ SAMLResponse: compact });
    const assertionXml = profile?.getAssertionXml?.();
    if (assertionXml === undefined) refuse('no signed assertion');
    signedXml = assertionXml;
  } catch (error) {
    if (error instanceof SsoFailure) throw error;
    refuse(error instanceof Error ? error.message : String(error));
  }

  // From here on only the signed assertion is read.
  const signedDoc = parseUntrustedXml(signedXml);
  const assertion = signedDoc.documentElement;
  if (assertion === null || assertion.namespaceURI !== NS.assertion || assertion.localName !== 'Assertion') refuse('signed content is not an assertion');
  const assertionId = assertion.getAttribute('ID') ?? '';
  if (assertionId === '') refuse('assertion without ID');
  // The signed assertion must be the one element the shape checks found, not a copy from elsewhere.
  if (assertionId !== received.getAttribute('ID')) refuse('the signed assertion is not the one in the response');
  const issuer = onlyChild(assertion, NS.assertion, 'Issuer');
  if (issuer === undefined || soleText(issuer) !== settings.idpEntityId) refuse('the assertion names another issuer');

  const subject = onlyChild(assertion, NS.assertion, 'Subject');
  const nameIdElement = subject === undefined ? undefined : onlyChild(subject, NS.assertion, 'NameID');
  const nameId = nameIdElement === undefined ? undefined : soleText(nameIdElement);
  if (subject === undefined || nameIdElement === undefined || nameId === undefined) refuse('no single plain NameID');

  // The bearer confirmation: for this consumer, still valid, answering which request.
  const confirmations = childElements(subject, NS.assertion, 'SubjectConfirmation').filter((c) => c.getAttribute('Method') === BEARER);
  if (confirmations.length !== 1) refuse('not exactly one bearer confirmation');
  const data = onlyChild(confirmations[0] as Element, NS.assertion, 'SubjectConfirmationData');
  if (data === undefined) refuse('no SubjectConfirmationData');
  if (data.getAttribute('Recipient') !== settings.acsUrl) refuse('Recipient is not this assertion consumer');
  const confirmUntil = instant(data.getAttribute('NotOnOrAfter'), 'SubjectConfirmationData NotOnOrAfter');
  if (confirmUntil === undefined) refuse('the confirmation has no NotOnOrAfter');
  if (now - SAML_CLOCK_SKEW_MS >= confirmUntil) refuse('the confirmation has expired');
  const confirmFrom = instant(data.getAttribute('NotBefore'), 'SubjectConfirmationData NotBefore');
  if (confirmFrom !== undefined && now + SAML_CLOCK_SKEW_MS < confirmFrom) refuse('the confirmation is not yet valid');

  const conditions = childElements(assertion, NS.assertion, 'Conditions');
  if (conditions.length !== 1) refuse('not exactly one Conditions');
  const condition = conditions[0] as Element;
  const notBefore = instant(condition.getAttribute('NotBefore'), 'Conditions NotBefore');
  const notOnOrAfter = instant(condition.getAttribute('NotOnOrAfter'), 'Conditions NotOnOrAfter');
  if (notBefore !== undefined && now + SAML_CLOCK_SKEW_MS < notBefore) refuse('the assertion is not yet valid');
  if (notOnOrAfter !== undefined && now - SAML_CLOCK_SKEW_MS >= notOnOrAfter) refuse('the assertion has expired');
  const audiences = childElements(condition, NS.assertion, 'AudienceRestriction').map((restriction) =>
    childElements(restriction, NS.assertion, 'Audience').map((audience) => soleText(audience)),
  );
  if (audiences.length === 0 || !audiences.every((list) => list.includes(settings.spEntityId))) refuse('the audience is not this service');

  const signedInResponseTo = data.getAttribute('InResponseTo') ?? '';
  const responseInResponseTo = response.getAttribute('InResponseTo') ?? '';
  if (responseInResponseTo !== '' && responseInResponseTo !== signedInResponseTo) refuse('InResponseTo of the response and the assertion differ');

  // A NameID is an email when its format says so, or when it names none (unspecified) and reads as one.
  const format = nameIdElement.getAttribute('Format') || UNSPECIFIED_FORMAT;
  const nameIdEmail = format === EMAIL_FORMAT || (format === UNSPECIFIED_FORMAT && isValidEmail(nameId.trim())) ? nameId : undefined;
  const email = attributeValue(assertion, EMAIL_ATTRIBUTES) ?? nameIdEmail;
  return {
    assertionId,
    nameId,
    email,
    givenName: attributeValue(assertion, GIVEN_NAME_ATTRIBUTES),
    familyName: attributeValue(assertion, SURNAME_ATTRIBUTES),
    inResponseTo: signedInResponseTo === '' ? undefined : signedInResponseTo,
    expiresAt: Math.max(confirmUntil, notOnOrAfter ?? 0) + SAML_CLOCK_SKEW_MS,
  };
}
