import { hostsOf, safeRedirect } from '@foyer/contract';
import type { Config } from '../../config.js';

/**
 * Spec §5's allow-list on the server (decision 0008): the product's own sites are this
 * environment's server addresses, this service included. Anything else is dropped, never stored.
 *
 * A value is checked once when it is written (sign-up keeps `redirectTo` only if it passes) and
 * once by the browser right before it navigates (the web app's allowedTarget); what was stored
 * after passing here is not checked again on the way out.
 */
export interface RedirectPolicy {
  /** The target if the allow-list accepts it, else undefined. */
  allowed(target: string | null | undefined): string | undefined;
}

/** The policy for one configuration; its own hosts are worked out once, at boot. */
export function createRedirectPolicy(config: Pick<Config, 'serverUrls' | 'publicUrl'>): RedirectPolicy {
  const ownHosts = hostsOf([...Object.values(config.serverUrls), config.publicUrl]);
  return { allowed: (target) => safeRedirect(target, { ownHosts }) };
}
