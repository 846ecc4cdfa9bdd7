import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider, { type Configuration } from 'oidc-provider';

/**
 * A company's OpenID provider for the SSO browser tests: oidc-provider, a certified OpenID
 * Connect implementation, with its own sign-in page that checks a username and password against
 * the company's people. It listens first, so `sso add-oidc` can be given its issuer; the client
 * (with the redirect URIs the CLI printed) is registered afterwards, as an administrator would.
 */

export interface OidcIdpUser {
  username: string;
  password: string;
  email: string;
  givenName: string;
  familyName: string;
}

export interface OidcIdp {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Registers Foyer's client with the redirect URIs that `sso add-oidc` printed. */
  registerClient(redirectUris: string[]): void;
  /** The company changes a person's address; the subject (`sub`) stays theirs. */
  changeEmail(username: string, email: string): void;
  stop(): Promise<void>;
}

const CLIENT_ID = 'foyer-sso';

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The provider's sign-in page: static HTML, no script. */
function loginPage(uid: string, message: string | undefined): string {
  const id = encodeURIComponent(uid);
  const alert = message === undefined ? '' : `<p role="alert" class="alert">${escapeHtml(message)}</p>`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sign in – Corp ID</title>
<style>
body { font-family: system-ui, sans-serif; background: #eef2f0; color: #14231c; margin: 0; }
main { max-width: 24rem; margin: 3rem auto; background: #fff; padding: 2rem; border-radius: 8px; box-shadow: 0 1px 4px rgb(0 0 0 / 15%); }
h1 { font-size: 1.4rem; margin-top: 0; }
label { display: block; margin: 1rem 0 0.25rem; font-weight: 600; }
input { width: 100%; box-sizing: border-box; padding: 0.6rem; font-size: 1rem; border: 1px solid #5b6b63; border-radius: 4px; }
.actions { display: flex; gap: 0.75rem; margin-top: 1.5rem; }
button { padding: 0.6rem 1.2rem; font-size: 1rem; border-radius: 4px; border: 1px solid #0f6b45; cursor: pointer; }
.primary { background: #0f6b45; color: #fff; }
.secondary { background: #fff; color: #0f6b45; }
.alert { color: #9b1c1c; }
</style>
</head>
<body>
<main>
<h1>Corp ID</h1>
<p>Sign in with your company account.</p>
${alert}
<form method="post" action="/interaction/${id}/login">
<label for="username">Username</label>
<input id="username" name="username" type="text" autocomplete="username" required autofocus>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<div class="actions">
<button class="primary" type="submit">Sign in</button>
<button class="secondary" type="submit" formaction="/interaction/${id}/abort" formnovalidate>Cancel</button>
</div>
</form>
</main>
</body>
</html>`;
}

async function readForm(request: IncomingMessage): Promise<URLSearchParams> {
  let body = '';
  for await (const chunk of request) {
    body += String(chunk);
    if (body.length > 16_384) throw new Error('form too large');
  }
  return new URLSearchParams(body);
}

export async function startOidcIdp(users: OidcIdpUser[]): Promise<OidcIdp> {
  const people = new Map(users.map((user) => [user.username, { ...user }]));
  const clientSecret = randomBytes(24).toString('base64url');
  let handler: (request: IncomingMessage, response: ServerResponse) => void = (_request, response) => response.writeHead(503).end();
  const server = createServer((request, response) => handler(request, response));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const registerClient = (redirectUris: string[]) => {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const signingKey: NonNullable<NonNullable<Configuration['jwks']>['keys']>[number] = {
      ...privateKey.export({ format: 'jwk' }),
      kid: randomBytes(8).toString('hex'),
      alg: 'RS256',
      use: 'sig',
    };
    const provider = new Provider(issuer, {
      clients: [
        {
          client_id: CLIENT_ID,
          client_secret: clientSecret,
          redirect_uris: redirectUris,
          response_types: ['code'],
          grant_types: ['authorization_code'],
          token_endpoint_auth_method: 'client_secret_basic',
        },
      ],
      jwks: { keys: [signingKey] },
      cookies: { keys: [randomBytes(32).toString('base64url')] },
      claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name', 'given_name', 'family_name'] },
      findAccount: (_ctx, sub) => {
        const person = people.get(sub);
        if (person === undefined) return undefined;
        return {
          accountId: sub,
          claims: () => ({
            sub,
            email: person.email,
            email_verified: true,
            given_name: person.givenName,
            family_name: person.familyName,
            name: `${person.givenName} ${person.familyName}`,
          }),
        };
      },
      interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
      features: { devInteractions: { enabled: false } },
      pkce: { required: () => true },
    });

    const interaction = async (request: IncomingMessage, response: ServerResponse, path: string): Promise<void> => {
      const details = await provider.interactionDetails(request, response);
      if (request.method === 'GET') {
        response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
        response.end(loginPage(details.uid, undefined));
        return;
      }
      const form = await readForm(request);
      if (path.endsWith('/abort')) {
        await provider.interactionFinished(request, response, { error: 'access_denied', error_description: 'End-User aborted interaction' });
        return;
      }
      const username = form.get('username')?.trim() ?? '';
      const person = people.get(username);
      if (person === undefined || person.password !== form.get('password')) {
        response.writeHead(400, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
        response.end(loginPage(details.uid, 'Wrong username or password.'));
        return;
      }
      // The company's own application: signing in is consent, so the grant is made here.
      const grant = new provider.Grant({ accountId: username, clientId: CLIENT_ID });
      grant.addOIDCScope(String(details.params.scope ?? 'openid'));
      const grantId = await grant.save();
      await provider.interactionFinished(request, response, { login: { accountId: username }, consent: { grantId } }, { mergeWithLastSubmission: false });
    };

    const callback = provider.callback();
    handler = (request, response) => {
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
  };

  return {
    issuer,
    clientId: CLIENT_ID,
    clientSecret,
    registerClient,
    changeEmail: (username, email) => {
      const person = people.get(username);
      if (person === undefined) throw new Error(`no person ${username}`);
      person.email = email;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
