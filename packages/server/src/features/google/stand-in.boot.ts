import type { Config } from '../../config.js';
import { BootError } from '../../lib/boot-failure.js';
import { isLoopbackHost } from '../../lib/loopback.js';
import { googleRedirectUri } from './google.client.js';
import type { StandIn, startStandIn as StartStandIn } from './stand-in.js';

/**
 * Decision 0019: with FOYER_ENV=local and no GOOGLE_CLIENT_ID (config.google is `standIn`), starts
 * the local OpenID provider on its own port and points Google sign-in at it; any other
 * configuration is returned as it is. The stand-in's module, and oidc-provider with it, is loaded
 * only here and only then, so no other environment ever runs it.
 */
export async function withGoogleStandIn(config: Config): Promise<{ config: Config; standIn?: StandIn; refused?: string }> {
  if (config.google?.kind !== 'standIn' || config.env !== 'local') return { config };
  // Its page signs anyone in as any email it is given, so only the developer may reach it: on a
  // bind beyond loopback (a container's 0.0.0.0, a LAN address) Google sign-in is off instead,
  // as the dev mailbox is (decision 0012).
  if (!isLoopbackHost(config.host)) {
    return {
      config: { ...config, google: undefined },
      refused: `HOST=${config.host} is not a loopback address: the local Google stand-in is not started and Google sign-in is off; bind to 127.0.0.1 or set GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET`,
    };
  }
  let startStandIn: typeof StartStandIn;
  try {
    ({ startStandIn } = await import('./stand-in.js'));
  } catch (error) {
    // oidc-provider is a development dependency: a production install (`npm ci --omit=dev`)
    // started without FOYER_ENV runs as local.
    throw new BootError(
      'the local Google stand-in needs the development dependencies (oidc-provider), which this install lacks: set FOYER_ENV for a deployed environment, or GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET, or install them',
      { cause: error },
    );
  }
  let standIn: StandIn;
  try {
    standIn = await startStandIn({ host: config.host, port: config.google.port, redirectUris: [googleRedirectUri(config.publicUrl)] });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new BootError(
      `the local Google stand-in could not start on port ${config.google.port} (${reason}): set GOOGLE_STAND_IN_PORT to a free port, or GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET`,
      { cause: error },
    );
  }
  return {
    config: { ...config, google: { kind: 'client', issuer: standIn.issuer, clientId: standIn.clientId, clientSecret: standIn.clientSecret } },
    standIn,
  };
}
