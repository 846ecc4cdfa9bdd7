import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider, { type Configuration } from 'oidc-provider';
import { standInLoginPage } from './stand-in.page.js';
import { isLocalRequestHost } from '../../lib/loopback.js';

/**
 * The local stand-in for Google (decision 0019): a real OpenID Connect provider (oidc-provider),
 * never hand-written token code, whose login page takes any email and name. main.ts starts it
 * only when FOYER_ENV=local and GOOGLE_CLIENT_ID is unset; tests start it themselves. oidc-provider
 * is a development dependency, so a production install does not even contain it.
 */
export interface StandIn {
  issuer: string;
  clientId: string;
  clientSecret: string;
  close(): Promise<void>;
}

export interface StandInOptions {
  host: string;
  /** 0: any free port (tests). */
  port: number;
  /** The client's redirect URIs: `<PUBLIC_URL>/social-auth-callback`. */
  redirectUris: string[];
}

interface Person {
  email: string;
  email_verified: boolean;
  given_name: string;
  family_name: string;
  name: string;
}

export const STAND_IN_CLIENT_ID = 'foyer-local';

/** The same email always gets the same subject, as one Google account keeps one `sub`. */
export function standInSubject(email: string): string {
  return `local-${createHash('sha256').update(email.trim().toLowerCase()).digest('hex').slice(0, 24)}`;
}

async function readForm(request: IncomingMessage): Promise<URLSearchParams> {
  let body = '';
  for await (const chunk of request) {
    body += String(chunk);
    if (body.length > 16_384) throw new Error('form too large');
  }
  return new URLSearchParams(body);
}

function signingKey(): NonNullable<NonNullable<Configuration['jwks']>['keys']>[number] {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { ...privateKey.export({ format: 'jwk' }), kid: randomBytes(8).toString('hex'), alg: 'RS256', use: 'sig' };
}

export async function startStandIn(options: StandInOptions): Promise<StandIn> {
  const people = new Map<string, Person>();
  const clientSecret = randomBytes(24).toString('base64url');
  let handler: (request: IncomingMessage, response: ServerResponse) => void = (_request, response) => response.writeHead(503).end();
  const server = createServer((request, response) => handler(request, response));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  const issuer = `http://${host}:${port}`;

  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: STAND_IN_CLIENT_ID,
        client_secret: clientSecret,
        redirect_uris: options.redirectUris,
        response_types: ['code'],
        grant_types: ['authorization_code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    jwks: { keys: [signingKey()] },
    cookies: { keys: [randomBytes(32).toString('base64url')] },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name', 'given_name', 'family_name'] },
    findAccount: (_ctx, sub) => {
      const person = people.get(sub);
      return person === undefined ? undefined : { accountId: sub, claims: () => ({ sub, ...person }) };
    },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    features: { devInteractions: { enabled: false } },
    pkce: { required: () => true },
  });

  const interaction = async (request: IncomingMessage, response: ServerResponse, path: string): Promise<void> => {
    const details = await provider.interactionDetails(request, response);
    if (request.method === 'GET') {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
      response.end(standInLoginPage(details.uid, undefined));
      return;
    }
    const form = await readForm(request);
    if (path.endsWith('/abort')) {
      await provider.interactionFinished(request, response, { error: 'access_denied', error_description: 'End-User aborted interaction' });
      return;
    }
    const email = form.get('email')?.trim() ?? '';
    if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) {
      response.writeHead(400, { 'content-type': 'text/html; charset=utf-8' });
      response.end(standInLoginPage(details.uid, 'Type an email address such as ann@example.com.'));
      return;
    }
    const givenName = form.get('given_name')?.trim() || 'Ann';
    const familyName = form.get('family_name')?.trim() || 'Example';
    const accountId = standInSubject(email);
    people.set(accountId, {
      email,
      email_verified: form.get('email_verified') === 'yes',
      given_name: givenName,
      family_name: familyName,
      name: `${givenName} ${familyName}`,
    });
    // A first-party stand-in: the person consents by signing in, so the grant is made here.
    const grant = new provider.Grant({ accountId, clientId: STAND_IN_CLIENT_ID });
    grant.addOIDCScope(String(details.params.scope ?? 'openid'));
    const grantId = await grant.save();
    await provider.interactionFinished(request, response, { login: { accountId }, consent: { grantId } }, { mergeWithLastSubmission: false });
  };

  const callback = provider.callback();
  handler = (request, response) => {
    // DNS rebinding: a page whose name resolves to this machine reaches the port, but says its own name.
    if (!isLocalRequestHost(request.headers.host)) {
      response.writeHead(421, { 'content-type': 'text/plain; charset=utf-8' }).end('This sign-in page answers only on this machine.');
      return;
    }
    const path = new URL(request.url ?? '/', issuer).pathname;
    if (!path.startsWith('/interaction/')) {
      void callback(request, response);
      return;
    }
    interaction(request, response, path).catch((error: unknown) => {
      if (!response.headersSent) response.writeHead(400, { 'content-type': 'text/plain; charset=utf-8' });
      response.end(`This sign-in cannot continue: ${error instanceof Error ? error.message : String(error)}`);
    });
  };

  return {
    issuer,
    clientId: STAND_IN_CLIENT_ID,
    clientSecret,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
