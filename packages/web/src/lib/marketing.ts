import { serverUrl, type RuntimeConfig } from '@foyer/contract/core';

/**
 * An address on the marketing site (spec §2: get-started, terms, privacy), or undefined when
 * the environment has no marketing address (then the spec §8 line is logged and the caller
 * leaves the link out rather than pointing it nowhere).
 */
export function marketingUrl(config: RuntimeConfig, path: string, search = ''): string | undefined {
  const base = serverUrl(config.serverUrls, 'marketing');
  return base === undefined ? undefined : `${base.replace(/\/+$/, '')}${path}${search}`;
}
