import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config.js';
import type { Clock } from '../../lib/clock.js';
import { GoogleClient } from '../google/google.client.js';
import { SsoFailure } from './sso.failure.js';
import type { SsoConnectionRow } from './sso.repo.js';
import { openClientSecret } from './sso.secret.js';
import { acceptableRemoteUrl } from './sso.connections.js';
import { ssoUrls } from './sso.urls.js';

/**
 * One OpenID Connect client per connection, kept for the process so discovery is cached (a day)
 * and shared by concurrent sign-ins, as for Google (decision 0019): the same openid-client 6 code
 * with code + PKCE (S256), `state`, `nonce`, and the ID token's signature checked against the
 * issuer's published keys along with `iss`, `aud`, `azp`, `exp` and `iat`.
 */
export class SsoOidcClients {
  private readonly clients = new Map<string, GoogleClient>();

  constructor(
    private readonly config: Config,
    private readonly log: FastifyBaseLogger,
    private readonly clock: Clock,
  ) {}

  client(connection: SsoConnectionRow): GoogleClient {
    const known = this.clients.get(connection.id);
    if (known !== undefined) return known;
    const issuer = connection.oidc_issuer ?? '';
    const url = acceptableRemoteUrl(issuer);
    const clientSecret = connection.oidc_client_secret === null ? undefined : openClientSecret(this.config, connection.id, connection.oidc_client_secret);
    if (connection.kind !== 'oidc' || url === undefined || connection.oidc_client_id === null || clientSecret === undefined) {
      throw new SsoFailure('1005', 'the OIDC connection lacks a usable issuer, client id or secret');
    }
    const client = new GoogleClient(
      {
        issuer,
        clientId: connection.oidc_client_id,
        clientSecret,
        redirectUri: ssoUrls(this.config, connection.id).oidcCallback,
        // acceptableRemoteUrl allows plain http on this machine only.
        allowHttp: url.protocol === 'http:',
        requestTimeoutMs: this.config.http.requestTimeoutMs,
      },
      this.log,
      () => this.clock.now(),
    );
    this.clients.set(connection.id, client);
    return client;
  }
}
