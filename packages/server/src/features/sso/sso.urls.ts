import { SSO_PATHS } from '@foyer/contract';
import type { Config } from '../../config.js';

function fill(path: string, connectionId: string): string {
  return path.replace(':connectionId', encodeURIComponent(connectionId));
}

/** Where a connection's IdP and its administrator find this service (spec §7's ssoRedirectURL base). */
export function ssoUrls(config: Pick<Config, 'publicUrl'>, connectionId: string) {
  const base = config.publicUrl;
  const metadata = base + fill(SSO_PATHS.samlMetadata, connectionId);
  return {
    /** The SP entity ID is the metadata address: unique per connection and resolvable. */
    entityId: metadata,
    metadata,
    acs: base + fill(SSO_PATHS.samlAcs, connectionId),
    oidcCallback: base + fill(SSO_PATHS.oidcCallback, connectionId),
  };
}
