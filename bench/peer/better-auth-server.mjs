// The peer of the benchmark: Better Auth with email and password, SQLite (better-sqlite3, a
// fresh file) or, beside Foyer on PostgreSQL, a fresh PostgreSQL database; its rate limiter off
// and its default password hasher (scrypt on the libuv thread pool), served over node:http by
// its own `toNodeHandler`.
//
// Environment: PORT, HOST (default 127.0.0.1), DB_FILE (a path to a new SQLite file) or
// DATABASE_URL (postgres://…, an empty database), SEED_USERS (JSON array of
// { email, password, name }).
// Prints one JSON line `{"ready":true,...}` on stdout once it listens and the users exist.
import { createServer } from 'node:http';
import Database from 'better-sqlite3';
import { betterAuth } from 'better-auth';
import { getMigrations } from 'better-auth/db/migration';
import { toNodeHandler } from 'better-auth/node';

const port = Number(process.env.PORT ?? 8790);
const host = process.env.HOST ?? '127.0.0.1';
const dbFile = process.env.DB_FILE;
const databaseUrl = process.env.DATABASE_URL;
if (!dbFile && !databaseUrl) throw new Error('DB_FILE or DATABASE_URL is required');
const seedUsers = JSON.parse(process.env.SEED_USERS ?? '[]');
const baseURL = `http://${host}:${port}`;

let database;
if (databaseUrl) {
  const { default: pg } = await import('pg');
  database = new pg.Pool({ connectionString: databaseUrl, max: 10 });
} else {
  database = new Database(dbFile);
  // The usual production setting for SQLite; Foyer's SQLite dialect uses it as well.
  database.pragma('journal_mode = WAL');
}

const options = {
  appName: 'bench-peer',
  baseURL,
  basePath: '/api/auth',
  secret: process.env.BETTER_AUTH_SECRET ?? 'bench-secret-bench-secret-bench-secret-0123456789',
  database,
  emailAndPassword: { enabled: true },
  rateLimit: { enabled: false },
  trustedOrigins: [baseURL],
  telemetry: { enabled: false },
  logger: { level: 'error' },
};

const { runMigrations } = await getMigrations(options);
await runMigrations();

const auth = betterAuth(options);
for (const user of seedUsers) {
  await auth.api.signUpEmail({ body: { email: user.email, password: user.password, name: user.name } });
}

const server = createServer(toNodeHandler(auth));
server.keepAliveTimeout = 65_000;
server.listen(port, host, () => {
  process.stdout.write(`${JSON.stringify({ ready: true, url: baseURL, pid: process.pid, users: seedUsers.length })}\n`);
});

function shutdown() {
  server.close(async () => {
    await (databaseUrl ? database.end() : database.close());
    process.exit(0);
  });
  setTimeout(() => process.exit(0), 2000).unref();
}
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);
