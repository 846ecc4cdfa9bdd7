import type { Environment } from './environments.js';
import { isLoopbackHostname } from './redirect.js';

/** Spec §3: browser storage keys, one name each. */
export const STORAGE_KEYS = {
  deviceId: 'deviceId',
  deviceToken: 'deviceToken',
  isMarketingTest: 'isMarketingTest',
  otter: 'otter',
  redemptionCode: 'redemptionCode',
  hubspotutk: 'hubspotutk',
  sessionExpired: 'sessionExpired',
  clientReturnUrl: 'clientReturnUrl',
  /** The preferred-SSO flag: sign-in forwards to SSO sign-in while it is set (spec §4). */
  preferSso: 'preferSso',
  /** The remembered SSO email (spec §2, 'Remember email'). */
  ssoEmail: 'ssoEmail',
  /**
   * Where a web SSO sign-in goes once `/ssol/:transferToken` has signed the browser in: the
   * `from` of SSO sign-in, kept in the tab across the identity provider's pages (decision 0022).
   */
  ssoFrom: 'ssoFrom',
  /** The one-time sign-in token, cleared after its exchange (spec §3). */
  otterToken: 'otterToken',
  /** The immediate-redirect flag (spec §3, §4). */
  doImmediateRedirect: 'doImmediateRedirect',
  /** The forum-pending flag: sign-in and sign-up bounce home while it is set (spec §4). */
  discoursePending: 'discoursePending',
  /** The Google state nonce and the query kept across the consent round trip (spec §4). */
  socialAuthNonce: 'socialAuthNonce',
  socialAuthParams: 'socialAuthParams',
} as const;
export type StorageKey = keyof typeof STORAGE_KEYS;

/** Cookies the product reads or writes (spec §3, §7). */
export const COOKIE_BASE_NAMES = {
  otter: 'otter',
  deviceId: 'deviceId',
  xsrf: 'XSRF-TOKEN',
} as const;

/** Spec §7: the XSRF header, read by the page from the `XSRF-TOKEN` cookie. */
export const XSRF_HEADER = 'X-XSRF-TOKEN';
export const DEVICE_ID_HEADER = 'X-DeviceId';

/** Spec §3: cookie names get the suffix `_{env}` outside production. */
export function cookieName(base: string, env: Environment): string {
  return env === 'prod' ? base : `${base}_${env}`;
}

/** Where plain-http loopback is normal (a developer's machine, CI); never a deployment. */
const LOOPBACK_HTTP_ENVIRONMENTS: readonly Environment[] = ['local', 'test'];

/**
 * Whether a cookie with `Domain=<domain>` set by `hostname` is kept by the browser: the host is the
 * domain itself or one of its subdomains (RFC 6265 §5.1.3 domain-matching). A server configured
 * otherwise would see every cookie it sets dropped.
 */
export function isCookieDomainOf(hostname: string, domain: string): boolean {
  const host = hostname.toLowerCase();
  const parent = domain.toLowerCase().replace(/^\./, '');
  return parent !== '' && (host === parent || host.endsWith(`.${parent}`));
}

export interface CookieRules {
  domain?: string;
  path: '/';
  sameSite: 'strict';
  secure: boolean;
  httpOnly: boolean;
}

/**
 * Spec §3 and ARCHITECTURE.md: same-site strict, HttpOnly unless the page's script must read the
 * value (the XSRF token and the device id), and Secure except on loopback in `local` and `test`.
 * Any other host keeps Secure, an IP address included: a server reached as `http://203.0.113.5`
 * would otherwise send the session token in clear over the network (decision 0004).
 *
 * Spec §3's parent domain is `domain`, the deployment's COOKIE_DOMAIN, never guessed from the host
 * name (decision 0018): the last two labels of `auth.example.co.uk` are a public suffix browsers
 * refuse, and those of `auth.staging.example.com` would hand staging's cookies to production's
 * hosts. Without one the cookie is host-only (no Domain attribute), the narrowest scope.
 */
export function cookieRules(hostname: string, env: Environment, scriptReadable: boolean, domain?: string): CookieRules {
  const host = hostname.toLowerCase();
  return {
    ...(domain === undefined ? {} : { domain }),
    path: '/',
    sameSite: 'strict',
    secure: !(isLoopbackHostname(host) && LOOPBACK_HTTP_ENVIRONMENTS.includes(env)),
    httpOnly: !scriptReadable,
  };
}
