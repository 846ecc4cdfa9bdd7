import type { Environment } from './environments.js';

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

function isLocalHost(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '127.0.0.1' || hostname === '[::1]' || /^\d+\.\d+\.\d+\.\d+$/.test(hostname);
}

/**
 * Spec §3: cookies are set on the parent domain (`auth.example.com` → `example.com`), so the
 * app's other sites see them. On localhost and bare IP addresses the cookie is host-only:
 * browsers refuse `Domain=localhost` (decision 0004).
 */
export function cookieDomain(hostname: string): string | undefined {
  const host = hostname.toLowerCase();
  if (isLocalHost(host)) return undefined;
  const labels = host.split('.');
  return labels.length <= 2 ? host : labels.slice(-2).join('.');
}

export interface CookieRules {
  domain?: string;
  path: '/';
  sameSite: 'strict';
  secure: boolean;
  httpOnly: boolean;
}

/**
 * Spec §3 and ARCHITECTURE.md: same-site strict, secure except on localhost, HttpOnly unless
 * the page's script must read the value (the XSRF token and the device id).
 */
export function cookieRules(hostname: string, scriptReadable: boolean): CookieRules {
  const domain = cookieDomain(hostname);
  return {
    ...(domain === undefined ? {} : { domain }),
    path: '/',
    sameSite: 'strict',
    secure: !isLocalHost(hostname.toLowerCase()),
    httpOnly: !scriptReadable,
  };
}
