// Starts the processes of bench/peer/: Better Auth (the peer), the floor servers, and the Google
// provider the harness signs in with.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './foyer.mjs';
import { startChild } from './proc.mjs';

export function betterAuthVersion() {
  try {
    // Its exports map does not expose package.json, so read the installed file (bench/install.mjs).
    return JSON.parse(readFileSync(join(ROOT, 'bench/node_modules/better-auth/package.json'), 'utf8')).version;
  } catch {
    return null;
  }
}

/** Starts one of bench/peer/*.mjs and waits for the `{"ready":true}` line it prints (kept as `child.ready`). */
function startReady(script, env, label, timeoutMs = 60_000) {
  return new Promise((resolve, reject) => {
    let done = false;
    const child = startChild(process.execPath, [join(ROOT, 'bench/peer', script)], {
      cwd: ROOT,
      env,
      onLine(line) {
        if (done || !line.startsWith('{')) return;
        try {
          const message = JSON.parse(line);
          if (message.ready) {
            child.ready = message;
            done = true;
            clearTimeout(timer);
            resolve(child);
          }
        } catch {
          // not the ready line
        }
      },
    });
    const timer = setTimeout(() => {
      if (done) return;
      done = true;
      child.kill('SIGKILL');
      reject(new Error(`${label} did not start within ${timeoutMs} ms:\n${child.output()}`));
    }, timeoutMs);
    child.exited.then(({ code, signal }) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      reject(new Error(`${label} exited (${code ?? signal}) before it was ready:\n${child.output()}`));
    });
  });
}

/** `dbFile` for SQLite, or `databaseUrl` for an empty PostgreSQL database. */
export function startBetterAuth({ port, dbFile, databaseUrl, users }) {
  return startReady(
    'better-auth-server.mjs',
    {
      NODE_ENV: 'production',
      PORT: String(port),
      HOST: '127.0.0.1',
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : { DB_FILE: dbFile }),
      SEED_USERS: JSON.stringify(users.map((user) => ({ email: user.email, password: user.password, name: `${user.firstName} ${user.lastName}` }))),
    },
    'Better Auth',
  );
}

/** The floor: node:http + one argon2id verify per sign-in (bench/peer/verify-only-server.mjs). */
export function startVerifyOnly({ port, users }) {
  return startReady(
    'verify-only-server.mjs',
    {
      NODE_ENV: 'production',
      PORT: String(port),
      HOST: '127.0.0.1',
      SEED_USERS: JSON.stringify(users.map(({ email, password }) => ({ email, password }))),
    },
    'the verify-only server',
  );
}

/**
 * The cheap-call floor: node:http answering every request with `answer` ({ status, headers, body }),
 * the answer Foyer gave to a session check (bench/peer/fixed-answer-server.mjs).
 */
export function startFixedAnswer({ port, answer }) {
  return startReady(
    'fixed-answer-server.mjs',
    { NODE_ENV: 'production', PORT: String(port), HOST: '127.0.0.1', ANSWER: JSON.stringify(answer) },
    'the fixed-answer server',
  );
}

/** The DiscourseConnect floor: node:http + the round trip's HMAC and base64 work only (bench/peer/forum-floor-server.mjs). */
export function startForumFloor({ port, secret, user }) {
  return startReady(
    'forum-floor-server.mjs',
    { NODE_ENV: 'production', PORT: String(port), HOST: '127.0.0.1', SECRET: secret, USER_FIELDS: JSON.stringify(user) },
    'the DiscourseConnect floor',
  );
}

/**
 * The Google callback's floor (bench/peer/google-floor-server.mjs), a client of the provider
 * `google` (its issuer, client, certificate and Foyer's redirect URI, which the provider accepts).
 */
export function startGoogleFloor({ port, google }) {
  return startReady(
    'google-floor-server.mjs',
    {
      NODE_ENV: 'production',
      PORT: String(port),
      HOST: '127.0.0.1',
      ISSUER: google.issuer,
      CLIENT_ID: google.clientId,
      CLIENT_SECRET: google.clientSecret,
      REDIRECT_URI: google.redirectUri,
      CA_FILE: google.caFile,
    },
    'the Google callback floor',
  );
}

/**
 * The Google provider (bench/peer/google-provider.mjs) over https with this certificate, for a
 * client whose redirect URI is `redirectUri`; `child.ready` holds its issuer, client id and secret.
 */
export function startGoogleProvider({ port, redirectUri, certFile, keyFile }) {
  return startReady(
    'google-provider.mjs',
    { NODE_ENV: 'production', PORT: String(port), HOST: '127.0.0.1', REDIRECT_URI: redirectUri, CERT_FILE: certFile, KEY_FILE: keyFile },
    'the Google provider',
  );
}
