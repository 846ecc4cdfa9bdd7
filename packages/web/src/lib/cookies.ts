import { cookieName, cookieRules, type RuntimeConfig } from '@foyer/contract/core';
import { readCookie } from './storage';

/**
 * A cookie the page itself writes (the device id of the hand-off, the analytics visitor id), by
 * spec §3's rules: `_{env}` suffix outside production, the configured parent domain, SameSite
 * Strict, Secure except on loopback in local and test. Script-written cookies cannot be HttpOnly,
 * so nothing secret is ever written here; the session cookie is the server's alone.
 */
export function writeCookie(config: RuntimeConfig, base: string, value: string, maxAgeSeconds: number): void {
  const rules = cookieRules(window.location.hostname, config.env, true, config.cookieDomain);
  const parts = [`${cookieName(base, config.env)}=${encodeURIComponent(value)}`, `Path=${rules.path}`, `Max-Age=${maxAgeSeconds}`, 'SameSite=Strict'];
  if (rules.domain !== undefined) parts.push(`Domain=${rules.domain}`);
  if (rules.secure) parts.push('Secure');
  document.cookie = parts.join('; ');
}

export function readOwnCookie(config: RuntimeConfig, base: string): string | undefined {
  return readCookie(cookieName(base, config.env));
}
