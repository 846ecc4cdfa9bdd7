// The floor of a sign-in over HTTP on this machine: node:http, JSON.parse of Foyer's sign-in
// body, one argon2id verify with Foyer's parameters against the account's hash (a dummy hash for
// an unknown email), a random token in the answer. No framework, no database, no audit. The verify
// runs on Foyer's own password hasher (argon2id on one thread per core, decision 0011), as the raw
// rate's does, so the floor leaves out exactly what a sign-in does besides hashing. Its efficiency
// (req/s over the raw verify rate) shows how close any server can get here, with the load
// generator on the same two cores.
//
// Environment: PORT, HOST (default 127.0.0.1), SEED_USERS (JSON array of { email, password }).
// Prints `{"ready":true,...}` once it listens.
import { createHash, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { serverPasswordHasher } from '../lib/argon2-raw.mjs';

const port = Number(process.env.PORT ?? 8791);
const host = process.env.HOST ?? '127.0.0.1';
const sha256Hex = (text) => createHash('sha256').update(text).digest('hex');

const passwords = await serverPasswordHasher();
const hashes = new Map();
for (const user of JSON.parse(process.env.SEED_USERS ?? '[]')) hashes.set(user.email, await passwords.hash(sha256Hex(user.password)));
const dummy = await passwords.hash(randomBytes(16).toString('hex'));

const server = createServer((request, response) => {
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.on('end', async () => {
    let status = 400;
    let body = '{"errorMessage":"invalidRequest"}';
    try {
      const { email, hashPassword } = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      const stored = hashes.get(email);
      const ok = await passwords.verify(stored ?? dummy, hashPassword);
      if (ok && stored) {
        status = 200;
        body = JSON.stringify({ otter: randomBytes(32).toString('base64url') });
      } else {
        status = 401;
        body = '{"errorMessage":"invalidCredentials"}';
      }
    } catch {
      // a bad body stays a 400
    }
    response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
    response.end(body);
  });
});
server.keepAliveTimeout = 65_000;
server.listen(port, host, () => process.stdout.write(`${JSON.stringify({ ready: true, pid: process.pid })}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
