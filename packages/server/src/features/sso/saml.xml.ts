import type * as XmlDom from '@xmldom/xmldom';
import { loadOnUse } from '../../lib/load-on-use.js';

export const NS = {
  protocol: 'urn:oasis:names:tc:SAML:2.0:protocol',
  assertion: 'urn:oasis:names:tc:SAML:2.0:assertion',
  metadata: 'urn:oasis:names:tc:SAML:2.0:metadata',
  dsig: 'http://www.w3.org/2000/09/xmldsig#',
} as const;

export class UnsafeXmlError extends Error {
  override name = 'UnsafeXmlError';
}

/**
 * Parses XML that came from outside, refusing what SAML never needs and attacks use:
 * - a DOCTYPE or entity declaration (XML external entities, billion laughs);
 * - any comment: `alice@corp.example<!---->.evil.example` in a NameID canonicalises, and so
 *   verifies, as the signed text while a parser that reads the first text node sees another
 *   (the comment-truncation attack of CVE-2017-11427 and its siblings);
 * - a CDATA section (SAML values are plain text; CDATA is one more way to split a value so
 *   that two readers see different text);
 * - processing instructions other than the XML declaration;
 * - anything the parser itself reports as malformed, or throws on.
 * Metadata, which an administrator chose and whose text is never read across a comment, may
 * keep its comments (`allowComments`).
 */
export function parseUntrustedXml(xml: string, options: { allowComments?: boolean } = {}): Document {
  if (/<!DOCTYPE|<!ENTITY/i.test(xml)) throw new UnsafeXmlError('doctype or entity declaration');
  if (xml.includes('<![CDATA[')) throw new UnsafeXmlError('CDATA section');
  if (options.allowComments !== true && xml.includes('<!--')) throw new UnsafeXmlError('comment');
  // One XML declaration at the very start is all SAML uses; any other `<?…?>` is refused.
  if (/<\?/.test(xml.replace(/^\uFEFF?\s*<\?xml\s[^?]*\?>/, ''))) throw new UnsafeXmlError('processing instruction');
  const problems: string[] = [];
  const record = (message: string) => problems.push(message);
  let doc: Document;
  try {
    const { DOMParser } = loadOnUse<typeof XmlDom>('@xmldom/xmldom');
    doc = new DOMParser({ errorHandler: { warning: record, error: record, fatalError: record } }).parseFromString(xml, 'text/xml');
  } catch (error) {
    // xmldom throws on some input instead of reporting it: malformed all the same.
    throw new UnsafeXmlError(`malformed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  if (problems.length > 0 || doc.documentElement === null) throw new UnsafeXmlError(`malformed: ${problems[0] ?? 'no root'}`);
  return doc;
}

/** Element children of a node in a namespace with a local name (direct children only). */
export function childElements(parent: Element, ns: string, localName: string): Element[] {
  const found: Element[] = [];
  for (let node = parent.firstChild; node !== null; node = node.nextSibling) {
    if (node.nodeType === node.ELEMENT_NODE) {
      const element = node as Element;
      if (element.namespaceURI === ns && element.localName === localName) found.push(element);
    }
  }
  return found;
}

export function onlyChild(parent: Element, ns: string, localName: string): Element | undefined {
  const found = childElements(parent, ns, localName);
  return found.length === 1 ? found[0] : undefined;
}

/**
 * The text of an element that holds nothing but one text node: an element with child elements,
 * or text split by anything, is not read at all (a value is either exactly what was signed or
 * refused).
 */
export function soleText(element: Element): string | undefined {
  const first = element.firstChild;
  if (first === null || first.nextSibling !== null || first.nodeType !== first.TEXT_NODE) return undefined;
  const value = (first.nodeValue ?? '').trim();
  return value === '' ? undefined : value;
}

/** Every element in the document with this namespace and local name, at any depth. */
export function allElements(doc: Document | Element, ns: string, localName: string): Element[] {
  return Array.from(doc.getElementsByTagNameNS(ns, localName));
}

/**
 * Every element with this local name at any depth, in any namespace or none: what a reader
 * that matches on `local-name()` alone (as node-saml's XPath does) would find.
 */
export function elementsNamed(doc: Document | Element, localName: string): Element[] {
  return Array.from(doc.getElementsByTagNameNS('*', localName));
}
