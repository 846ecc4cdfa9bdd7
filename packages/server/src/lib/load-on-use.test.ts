import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CALLS } from '@foyer/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../db/database.js';
import { migrateToLatest } from '../db/migrate.js';
import { createTestApp, TEST_DB } from '../../test/helpers.js';
import { readAuthnRequest, signedResponse, encode } from '../../test/saml-idp.js';
import { ServerProcess } from '../../test/server-process.js';
import { samlOrganization } from '../../test/sso.js';
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

const PUBLIC_URL = 'http://foyer.test';

async function loadedPackages(file: string): Promise<string[]> {
  return JSON.parse(await readFile(file, 'utf8')) as string[];
}

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
    const loaded = await loadedPackages(loadedFile);
    // The preload saw the service's own CommonJS dependencies, so its list is a real one.
    expect(loaded).toEqual(expect.arrayContaining(['fastify', 'better-sqlite3']));
    for (const unused of ['pg', 'ioredis', 'nodemailer', '@node-saml/node-saml', '@xmldom/xmldom', 'xml-crypto']) expect(loaded).not.toContain(unused);
  }, 60_000);

  it('SAML metadata and sign-in run the SAML libraries on their own thread: the main thread never loads them', async () => {
    const loadedFile = join(dir, 'loaded-saml.json');
    const database = openDatabase({ kind: 'sqlite', filename: join(dir, 'saml.sqlite') });
    await migrateToLatest(database);
    // The organisation and its connection, written to the database the server process then uses.
    const admin = await createTestApp({ database, env: { PUBLIC_URL } });
    const server = await ServerProcess.start({ DATABASE_URL: join(dir, 'saml.sqlite'), PUBLIC_URL, LOADED_PACKAGES_FILE: loadedFile }, [
      '--require',
      join(dir, 'preload.cjs'),
    ]);
    try {
      const corp = await samlOrganization(admin);
      await server.ready();
      // The service provider's metadata, as an IdP's administrator fetches it, is made on a thread too.
      const metadata = await fetch(server.url + new URL(corp.urls.metadata).pathname);
      expect(metadata.status).toBe(200);
      expect(await metadata.text()).toContain(`Location="${corp.urls.acs}"`);
      const email = corp.email();
      const started = await server.post(CALLS.ssoStart.path, { email }, '203.0.113.8');
      expect(started.status).toBe(200);
      const request = readAuthnRequest((started.body as { url: string }).url);
      const xml = signedResponse({
        acsUrl: corp.urls.acs,
        audience: corp.urls.entityId,
        nameId: 'ann-1',
        email,
        inResponseTo: request.id,
        now: Date.now(),
      });
      const consumed = await fetch(server.url + new URL(corp.urls.acs).pathname, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ SAMLResponse: encode(xml) }).toString(),
        redirect: 'manual',
      });
      expect(consumed.status, server.log).toBe(303);
      const landing = new URL(consumed.headers.get('location') ?? '', PUBLIC_URL);
      expect(landing.searchParams.get('code')).toBeNull();
      expect(landing.searchParams.get('transferToken')).toMatch(/.{20,}/);
    } finally {
      await server.stop();
      await admin.close();
      await database.destroy();
    }
    const loaded = await loadedPackages(loadedFile);
    expect(loaded).toEqual(expect.arrayContaining(['fastify', 'better-sqlite3']));
    for (const library of ['@node-saml/node-saml', 'xml-crypto', '@xmldom/xmldom', 'xmlbuilder2']) expect(loaded).not.toContain(library);
  }, 60_000);
});
