import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CALLS } from '@foyer/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DB } from '../../test/helpers.js';
import { ServerProcess } from '../../test/server-process.js';
import { randomToken, sha256Hex } from './crypto.js';

/** Writes, as the process exits, the packages it loaded through require (ESM imports of CommonJS included). */
const PRELOAD = `
const { writeFileSync } = require('node:fs');
process.on('exit', () => {
  const packages = new Set();
  for (const file of Object.keys(require.cache)) {
    const match = /node_modules\\/((?:@[^/]+\\/)?[^/]+)\\//.exec(file);
    if (match) packages.add(match[1]);
  }
  writeFileSync(process.env.LOADED_PACKAGES_FILE, JSON.stringify([...packages]));
});
`;

/**
 * load-on-use.ts: a service on SQLite without Redis, SMTP or a SAML connection never loads their
 * libraries, however many people sign in; the first SAML sign-in or PostgreSQL database loads them.
 */
describe.skipIf(TEST_DB !== 'sqlite')('libraries loaded on use', () => {
  let dir = '';

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'foyer-load-on-use-'));
    await writeFile(join(dir, 'preload.cjs'), PRELOAD);
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('a SQLite service without Redis, SMTP or SSO holds none of their libraries after serving', async () => {
    const loadedFile = join(dir, 'loaded.json');
    const server = await ServerProcess.start({ DATABASE_URL: join(dir, 'foyer.sqlite'), LOADED_PACKAGES_FILE: loadedFile }, [
      '--require',
      join(dir, 'preload.cjs'),
    ]);
    try {
      await server.ready();
      const signUp = await server.post(
        CALLS.signup.path,
        { email: 'ann@example.com', hashPassword: sha256Hex('plum orchard lantern 42'), deviceId: randomToken(9), firstName: 'Ann', lastName: 'Lee' },
        '203.0.113.7',
      );
      expect(signUp.status).toBe(200);
      const signIn = await server.post(
        CALLS.signin.path,
        { email: 'ann@example.com', hashPassword: sha256Hex('not her password'), deviceId: randomToken(9) },
        '203.0.113.7',
      );
      expect(signIn.status).toBe(401);
    } finally {
      await server.stop();
    }
    const loaded = JSON.parse(await readFile(loadedFile, 'utf8')) as string[];
    // The preload saw the service's own CommonJS dependencies, so its list is a real one.
    expect(loaded).toEqual(expect.arrayContaining(['fastify', 'better-sqlite3']));
    for (const unused of ['pg', 'ioredis', 'nodemailer', '@node-saml/node-saml', '@xmldom/xmldom', 'xml-crypto']) expect(loaded).not.toContain(unused);
  }, 60_000);
});
