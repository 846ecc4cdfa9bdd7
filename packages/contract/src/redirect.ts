/**
 * Spec §5 and ARCHITECTURE.md: a redirect target (`from`, `returnUrl`, `next`,
 * `return_sso_url`) is followed only when it is
 *   - a relative path on this site (`/home?x=1`), or
 *   - an address in the native or local app scheme (`foyer://…`, `foyer-local://…`), or
 *   - an http(s) address whose host is exactly one of the product's own sites.
 * Everything else is ignored. Closes the open-redirect channel (ASVS V3.7.2).
 */
export const NATIVE_APP_SCHEME = 'foyer';
export const LOCAL_APP_SCHEME = 'foyer-local';
/**
 * Decision 0022: where the SSO landing page hands a native client its one-time token
 * (`?transferToken=…`), one second after a successful sign-in (spec §9).
 */
export const NATIVE_SSO_TRANSFER_URL = `${NATIVE_APP_SCHEME}://sso-transfer`;

export interface RedirectPolicy {
  /** Host names (with port, when not the default) of the product's own sites. */
  ownHosts: readonly string[];
}

const BASE = 'https://foyer-relative.invalid';

/**
 * A host name that names this machine: `localhost` and its subdomains (RFC 6761: browsers resolve
 * `forum.localhost` to the loopback address themselves), 127.0.0.0/8 and `[::1]`. The only hosts
 * a plain-http address may have: a developer's machine, a test run.
 */
export function isLoopbackHostname(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  return host === 'localhost' || host.endsWith('.localhost') || /^127\.\d+\.\d+\.\d+$/.test(host) || host === '[::1]';
}

// Any control character or whitespace: browsers strip some of them from URLs, which is how
// `/\t/evil.example` turns into `//evil.example`.
// eslint-disable-next-line no-control-regex -- the control range is the point of this pattern
const UNSAFE_CHARS = /[\u0000-\u0020\u007f-\u009f\\]/;

function decodeRepeatedly(value: string): string | undefined {
  let current = value;
  for (let i = 0; i < 3; i++) {
    let next: string;
    try {
      next = decodeURIComponent(current);
    } catch {
      return undefined;
    }
    if (next === current) return current;
    current = next;
  }
  return current;
}

function isSafeRelativePath(value: string): boolean {
  if (!value.startsWith('/')) return false;
  // The decoded form is checked for the path only. A browser never decodes a query or fragment
  // before navigating, so an escaped control character there stays data, and the forum's return
  // path needs exactly that: Discourse's `sso` payload carries line feeds that are signed
  // (`/discourse-sso?sso=…%0A&sig=…`, decision 0021). The raw value has none (isAllowedRedirect).
  const end = value.search(/[?#]/);
  const decoded = decodeRepeatedly(end === -1 ? value : value.slice(0, end));
  if (decoded === undefined || UNSAFE_CHARS.test(decoded)) return false;
  // `//host` and `/\host` are protocol-relative to a browser; check the decoded form too so
  // `/%2F%2Fevil.example` cannot become one after a later decode.
  if (value.startsWith('//') || decoded.startsWith('//')) return false;
  let parsed: URL;
  try {
    parsed = new URL(value, BASE);
  } catch {
    return false;
  }
  return parsed.origin === BASE;
}

function isOwnSiteUrl(value: string, policy: RedirectPolicy): boolean {
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    return false;
  }
  if (parsed.username !== '' || parsed.password !== '') return false;
  if (parsed.protocol !== 'https:' && !(parsed.protocol === 'http:' && isLoopbackHostname(parsed.hostname))) return false;
  const host = parsed.host.toLowerCase();
  return policy.ownHosts.some((own) => own.toLowerCase() === host);
}

/** Whether an address is in the native or local app scheme (`foyer://…`, `foyer-local://…`) and safe to follow. */
export function isAppSchemeUrl(value: string): boolean {
  const match = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(value);
  if (!match) return false;
  const scheme = match[1]?.toLowerCase();
  if (scheme !== NATIVE_APP_SCHEME && scheme !== LOCAL_APP_SCHEME) return false;
  const decoded = decodeRepeatedly(value);
  return decoded !== undefined && !UNSAFE_CHARS.test(decoded);
}

export function isAllowedRedirect(target: unknown, policy: RedirectPolicy): target is string {
  if (typeof target !== 'string' || target.length === 0 || target.length > 2048) return false;
  if (UNSAFE_CHARS.test(target)) return false;
  if (target.startsWith('/')) return isSafeRelativePath(target);
  if (isAppSchemeUrl(target)) return true;
  return isOwnSiteUrl(target, policy);
}

/** The target when it passes the allow-list, otherwise undefined (the caller's default). */
export function safeRedirect(target: unknown, policy: RedirectPolicy): string | undefined {
  return isAllowedRedirect(target, policy) ? target : undefined;
}

/** The host part of each configured site address, for a RedirectPolicy. */
export function hostsOf(urls: Iterable<string | undefined>): string[] {
  const hosts = new Set<string>();
  for (const url of urls) {
    if (!url) continue;
    try {
      hosts.add(new URL(url).host.toLowerCase());
    } catch {
      // A malformed configured address contributes no host.
    }
  }
  return [...hosts];
}
