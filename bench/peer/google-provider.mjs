// The Google the harness signs in with: a real OpenID Connect provider (oidc-provider, as the
// local stand-in of decision 0019 is), configured as the stand-in is (one confidential client with
// client_secret_basic, PKCE required, RS256 ID tokens, scopes openid email profile), in its own
// process. Where it differs from the stand-in, it is for the bench:
// - it serves https: Foyer runs as a deployed environment, which takes only an https issuer
//   (config.ts); the harness gives Foyer this throwaway certificate through NODE_EXTRA_CA_CERTS;
// - the ID token carries the email and names, as Google's does, so a callback makes one call to
//   the provider (the token endpoint) and none to userinfo;
// - codes live ten minutes (Foyer's own state lifetime), so a code obtained before a chunk still
//   works when the chunk sends it; and its store has no size limit (oidc-provider's memory
//   adapter keeps 1000 entries, fewer than one run's codes);
// - its sign-in is a form post without a page: `email` to /interaction/<uid>/login.
//
// Environment: PORT, HOST (default 127.0.0.1), REDIRECT_URI (Foyer's social-auth-callback),
// CERT_FILE and KEY_FILE (its TLS certificate). Prints `{"ready":true,"issuer",...}` once it listens.
import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import Provider from 'oidc-provider';

const port = Number(process.env.PORT ?? 8794);
const host = process.env.HOST ?? '127.0.0.1';
const issuer = `https://${host}:${port}`;
const clientId = 'foyer-bench';
const clientSecret = randomBytes(24).toString('base64url');
const SWEEP_MS = 60_000;

/** oidc-provider's storage: every model in one Map, entries dropped once expired. */
const entries = new Map();
const sessionUids = new Map();
setInterval(() => {
  const now = Date.now();
  for (const [key, entry] of entries) if (entry.expiresAt <= now) entries.delete(key);
}, SWEEP_MS).unref();

class Store {
  constructor(model) {
    this.model = model;
  }
  key(id) {
    return `${this.model}:${id}`;
  }
  async upsert(id, payload, expiresIn) {
    entries.set(this.key(id), { payload, expiresAt: Date.now() + (expiresIn ?? 3600) * 1000 });
    if (this.model === 'Session') sessionUids.set(payload.uid, id);
  }
  async find(id) {
    const entry = entries.get(this.key(id));
    return entry === undefined || entry.expiresAt <= Date.now() ? undefined : entry.payload;
  }
  async findByUid(uid) {
    const id = sessionUids.get(uid);
    return id === undefined ? undefined : this.find(id);
  }
  async findByUserCode() {
    return undefined;
  }
  async consume(id) {
    const entry = entries.get(this.key(id));
    if (entry) entry.payload.consumed = Math.floor(Date.now() / 1000);
  }
  async destroy(id) {
    entries.delete(this.key(id));
  }
  async revokeByGrantId() {}
}

const people = new Map();
const subjectOf = (email) => `bench-${createHash('sha256').update(email.toLowerCase()).digest('hex').slice(0, 24)}`;
const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });

const provider = new Provider(issuer, {
  adapter: Store,
  clients: [
    {
      client_id: clientId,
      client_secret: clientSecret,
      redirect_uris: [process.env.REDIRECT_URI],
      response_types: ['code'],
      grant_types: ['authorization_code'],
      token_endpoint_auth_method: 'client_secret_basic',
    },
  ],
  jwks: { keys: [{ ...privateKey.export({ format: 'jwk' }), kid: randomBytes(8).toString('hex'), alg: 'RS256', use: 'sig' }] },
  cookies: { keys: [randomBytes(32).toString('base64url')] },
  claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name', 'given_name', 'family_name'] },
  conformIdTokenClaims: false,
  findAccount: (_ctx, sub) => {
    const person = people.get(sub);
    return person === undefined ? undefined : { accountId: sub, claims: () => ({ sub, ...person }) };
  },
  interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
  features: { devInteractions: { enabled: false } },
  pkce: { required: () => true },
  ttl: { AuthorizationCode: 600 },
});

async function login(request, response) {
  let form = '';
  for await (const chunk of request) form += chunk;
  const email = new URLSearchParams(form).get('email') ?? '';
  const details = await provider.interactionDetails(request, response);
  const accountId = subjectOf(email);
  people.set(accountId, { email, email_verified: true, given_name: 'Bench', family_name: 'User', name: 'Bench User' });
  const grant = new provider.Grant({ accountId, clientId });
  grant.addOIDCScope(String(details.params.scope ?? 'openid'));
  const grantId = await grant.save();
  await provider.interactionFinished(request, response, { login: { accountId }, consent: { grantId } }, { mergeWithLastSubmission: false });
}

const callback = provider.callback();
const server = createServer({ key: readFileSync(process.env.KEY_FILE), cert: readFileSync(process.env.CERT_FILE) }, (request, response) => {
  if (request.method === 'POST' && /^\/interaction\/[^/]+\/login$/.test(request.url ?? '')) {
    login(request, response).catch((error) => {
      if (!response.headersSent) response.writeHead(400, { 'content-type': 'text/plain; charset=utf-8' });
      response.end(`sign-in failed: ${error.message}`);
    });
    return;
  }
  void callback(request, response);
});
server.keepAliveTimeout = 65_000;
server.listen(port, host, () => process.stdout.write(`${JSON.stringify({ ready: true, pid: process.pid, issuer, clientId, clientSecret })}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
