import { hostsOf, safeRedirect, type RuntimeConfig } from '@foyer/contract/core';

/**
 * Spec §5: a `from` address is followed only if the contract's allow-list accepts it; the
 * product's own sites are the configured server addresses plus this page's own host. Anything
 * else is ignored silently and the default home is used (closes the open-redirect channel).
 */
export function redirectTarget(from: string | null, config: RuntimeConfig, ownHost: string = window.location.host): string {
  return allowedTarget(from, config, ownHost) ?? config.defaultHome;
}

/** The target if the allow-list accepts it, else undefined: for `redirectTo` and a server's `redirectUrl`. */
export function allowedTarget(target: string | null | undefined, config: RuntimeConfig, ownHost: string = window.location.host): string | undefined {
  const ownHosts = [...hostsOf(Object.values(config.serverUrls)), ownHost.toLowerCase()];
  return safeRedirect(target, { ownHosts });
}

/** A path with query parameters, leaving out the ones without a value. */
export function withQuery(path: string, params: Record<string, string | null | undefined>): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value !== null && value !== undefined && value !== '') query.set(name, value);
  }
  const text = query.toString();
  return text === '' ? path : `${path}?${text}`;
}

/** An address with the `transferToken` parameter added to its query, before any fragment. */
export function withToken(address: string, transferToken: string): string {
  const hashAt = address.indexOf('#');
  const base = hashAt < 0 ? address : address.slice(0, hashAt);
  const hash = hashAt < 0 ? '' : address.slice(hashAt);
  return `${base}${base.includes('?') ? '&' : '?'}transferToken=${encodeURIComponent(transferToken)}${hash}`;
}
