// The floor of a SAML assertion consumer: the cryptography it cannot do without, alone. The very
// responses Foyer consumed (signed by the harness's IdP) have their assertion's XML signature
// checked against the IdP's certificate as node-saml checks it in Foyer: the document decoded
// from base64 and parsed with @xmldom/xmldom, the assertion's Signature loaded into xml-crypto's
// SignedXml, and `checkSignature` over the whole document (the referenced element canonicalised
// and its SHA-256 digest compared, SignedInfo canonicalised and its RSA-SHA256 signature
// verified), with exactly one signed reference. xml-crypto works synchronously, so, as Foyer's
// SAML threads do (saml.thread.ts), the floor checks on worker threads, one check at a time on
// each: as many threads as Foyer starts (one per core, at most 4), in a process of its own.
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { DOMParser } from '@xmldom/xmldom';
import { SignedXml } from 'xml-crypto';
import { serveMeasurements, startWorker } from './raw-worker.mjs';

const ASSERTION = 'urn:oasis:names:tc:SAML:2.0:assertion';
const DSIG = 'http://www.w3.org/2000/09/xmldsig#';

/** As many threads as Foyer's SAML threads on this machine. */
export const SAML_FLOOR_THREADS = Math.max(1, Math.min(4, availableParallelism()));

function check(cert, response) {
  const xml = Buffer.from(response, 'base64').toString('utf8');
  const doc = new DOMParser().parseFromString(xml, 'text/xml');
  const assertion = doc.getElementsByTagNameNS(ASSERTION, 'Assertion')[0];
  const signature = assertion && Array.from(assertion.childNodes).find((node) => node.namespaceURI === DSIG && node.localName === 'Signature');
  if (!signature) return false;
  const verifier = new SignedXml({ publicCert: cert });
  verifier.loadSignature(signature);
  return verifier.checkSignature(xml) && verifier.getSignedReferences().length === 1;
}

/** `setup`: the IdP's certificate and signed responses (base64); `once()` checks the next one in turn on a free thread. */
async function prepare({ cert, responses }) {
  if (!responses?.length) throw new Error('no signed responses to verify');
  const idle = [];
  const waiting = [];
  const release = (thread) => {
    const queued = waiting.shift();
    if (queued) queued(thread);
    else idle.push(thread);
  };
  for (let i = 0; i < SAML_FLOOR_THREADS; i++) {
    const thread = { worker: new Worker(fileURLToPath(import.meta.url), { workerData: { cert } }), answer: null };
    thread.worker.on('message', (ok) => {
      const answer = thread.answer;
      thread.answer = null;
      release(thread);
      answer(ok);
    });
    thread.worker.on('error', (error) => {
      throw error;
    });
    idle.push(thread);
  }
  let next = 0;
  return async function verify() {
    const response = responses[next++ % responses.length];
    const thread = idle.pop() ?? (await new Promise((resolve) => waiting.push(resolve)));
    return new Promise((resolve) => {
      thread.answer = resolve;
      thread.worker.postMessage(response);
    });
  };
}

/** The floor's process, measured in chunks (raw-worker.mjs). */
export function startSamlWorker(setup) {
  return startWorker(fileURLToPath(import.meta.url), setup, 'the XML-signature floor');
}

if (!isMainThread) parentPort.on('message', (response) => parentPort.postMessage(check(workerData.cert, response)));
else if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv[2] === '--worker') serveMeasurements(prepare);
