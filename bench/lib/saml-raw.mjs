// The floor of a SAML assertion consumer: the cryptography it cannot do without, alone. The very
// responses Foyer consumed (signed by the harness's IdP) have their assertion's XML signature
// checked against the IdP's certificate as node-saml checks it in Foyer: the document decoded
// from base64 and parsed with @xmldom/xmldom, the assertion's Signature loaded into xml-crypto's
// SignedXml, and `checkSignature` over the whole document (the referenced element canonicalised
// and its SHA-256 digest compared, SignedInfo canonicalised and its RSA-SHA256 signature
// verified), with exactly one signed reference. xml-crypto works synchronously, on the main
// thread, as it does in Foyer, so the loop runs one check at a time, in a process of its own.
import { fileURLToPath } from 'node:url';
import { DOMParser } from '@xmldom/xmldom';
import { SignedXml } from 'xml-crypto';
import { serveMeasurements, startWorker } from './raw-worker.mjs';

const ASSERTION = 'urn:oasis:names:tc:SAML:2.0:assertion';
const DSIG = 'http://www.w3.org/2000/09/xmldsig#';

/** `setup`: the IdP's certificate and signed responses (base64); the check of the next one in turn. */
async function prepare({ cert, responses }) {
  if (!responses?.length) throw new Error('no signed responses to verify');
  let next = 0;
  return async function verify() {
    const xml = Buffer.from(responses[next++ % responses.length], 'base64').toString('utf8');
    const doc = new DOMParser().parseFromString(xml, 'text/xml');
    const assertion = doc.getElementsByTagNameNS(ASSERTION, 'Assertion')[0];
    const signature = assertion && Array.from(assertion.childNodes).find((node) => node.namespaceURI === DSIG && node.localName === 'Signature');
    if (!signature) return false;
    const verifier = new SignedXml({ publicCert: cert });
    verifier.loadSignature(signature);
    return verifier.checkSignature(xml) && verifier.getSignedReferences().length === 1;
  };
}

/** The floor's process, measured in chunks (raw-worker.mjs). */
export function startSamlWorker(setup) {
  return startWorker(fileURLToPath(import.meta.url), setup, 'the XML-signature floor');
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv[2] === '--worker') serveMeasurements(prepare);
