import { brotliCompressSync, brotliDecompressSync } from 'node:zlib';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { API_BASE, CALLS, DICTIONARY_ELEMENT_ID, InlineDictionary, RUNTIME_CONFIG_ELEMENT_ID, RuntimeConfig } from '@foyer/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, createTestDatabase, createTestUser, dbUnavailable, postSignIn, setCookie, type TestApp } from '../../../test/helpers.js';
import type { Database } from '../../db/database.js';
import { isPagePath } from './web.routes.js';
import { jsonForHtml } from './index-page.js';

/** The web app's own description element, as packages/web/index.html writes it. */
const DESCRIPTION_META = '<meta name="description" content="Sign in to Foyer, your library of text snippets." />';
const INDEX_HTML = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="UTF-8" />
    ${DESCRIPTION_META}
    <title>Foyer</title>
    <script type="module" src="/assets/index-abc123.js"></script>
  </head>
  <body><div id="root"></div></body>
</html>
`;

const FAVICON = fileURLToPath(new URL('../../../../web/public/favicon.ico', import.meta.url));
const WEB_INDEX_HTML = fileURLToPath(new URL('../../../../web/index.html', import.meta.url));

function scriptJson(html: string, id: string): unknown {
  const match = new RegExp(`<script type="application/json" id="${id}">(.*?)</script>`, 's').exec(html);
  if (!match?.[1]) throw new Error(`no #${id} element`);
  return JSON.parse(match[1]);
}

describe('jsonForHtml', () => {
  it('escapes everything that could end the script element or confuse a parser', () => {
    const text = jsonForHtml({ a: '</script><script>alert(1)</script>', b: '<!-- & \u2028\u2029' });
    expect(text).not.toMatch(/[<>&\u2028\u2029]/);
    expect(JSON.parse(text)).toEqual({ a: '</script><script>alert(1)</script>', b: '<!-- & \u2028\u2029' });
  });
});

describe('isPagePath', () => {
  it('leaves reserved prefixes and file names alone', () => {
    expect(isPagePath('/sign-in')).toBe(true);
    expect(isPagePath('/reset-password/abcDEF123')).toBe(true);
    expect(isPagePath('/api/nothing')).toBe(false);
    expect(isPagePath('/static/lang/x')).toBe(false);
    expect(isPagePath('/healthz')).toBe(false);
    for (const probe of ['/livez', '/readyz', '/metrics', '/readyz/x', '/dev/anything']) expect(isPagePath(probe), probe).toBe(false);
    // A probe's base address with a trailing slash, or an address in other case: not a page either.
    for (const wrong of ['//readyz', '//livez', '/READYZ', '/Healthz', '//metrics', '//api/account/session', '/API/account/session', '//dev/mailbox'])
      expect(isPagePath(wrong), wrong).toBe(false);
    expect(isPagePath('/sso/saml/x/acs')).toBe(false);
    expect(isPagePath('/assets/missing.js')).toBe(false);
    expect(isPagePath('/favicon.ico')).toBe(false);
    for (const file of ['/robots.txt', '/manifest.webmanifest', '/logo.PNG', '/x/app.js.map', '/.well-known/openid-configuration']) {
      expect(isPagePath(file), file).toBe(false);
    }
    expect(isPagePath('/apiary')).toBe(true);
    // Not a resource: the app's, which falls back to sign-in (spec §2).
    for (const page of ['/index.html', '/foo.bar', '//evil.com', '/u/ann.lee', '/sign-in.']) expect(isPagePath(page), page).toBe(true);
  });
});

describe.skipIf(dbUnavailable)('the web app', () => {
  let webDist: string;
  let database: Database;
  let t: TestApp;

  beforeAll(async () => {
    // Installed under a folder that is itself named assets: only the build's own assets/ is hashed.
    webDist = join(await mkdtemp(join(tmpdir(), 'foyer-web-')), 'assets', 'web');
    await mkdir(join(webDist, 'assets'), { recursive: true });
    await writeFile(join(webDist, 'index.html'), INDEX_HTML);
    await writeFile(join(webDist, 'assets', 'index-abc123.js'), 'console.log("app");');
    await writeFile(join(webDist, 'assets', 'index-abc123.js.br'), brotliCompressSync('console.log("app");'));
    await writeFile(join(webDist, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
    // The web build's own icon (packages/web/public), as browsers and bookmark tools ask for it.
    await copyFile(FAVICON, join(webDist, 'favicon.ico'));
    database = await createTestDatabase();
    // A flag override with markup in it would break out of the page if escaping failed.
    t = await createTestApp({ database, env: { WEB_DIST: webDist, RECAPTCHA_SITE_KEY: '</script><b>x' } });
  });

  afterAll(async () => {
    await t.close();
    await database.destroy();
    await rm(join(webDist, '..', '..'), { recursive: true, force: true });
  });

  it('serves a page with the runtime config and the visitor-language dictionary inline', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/sign-in?from=%2Fhome', headers: { 'accept-language': 'de-DE,de;q=0.9,en;q=0.8' } });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.headers.vary).toMatch(/Accept-Language/);
    expect(response.body).toContain('<html lang="de">');
    // What search results and link previews show is in the visitor's language too.
    expect(response.body).toContain('<meta name="description" content="Melden Sie sich bei Foyer an, Ihrer Bibliothek für Textbausteine."');
    expect(response.body).not.toContain('your library of text snippets');
    expect(await readFile(WEB_INDEX_HTML, 'utf8')).toContain(DESCRIPTION_META);

    const config = RuntimeConfig.parse(scriptJson(response.body, RUNTIME_CONFIG_ELEMENT_ID));
    expect(config).toMatchObject({ env: 'test', defaultHome: '/home', googleEnabled: false, reCaptchaSiteKey: '</script><b>x' });
    expect(config.flags['discourse-sso']).toBe(true);
    expect(response.body).not.toContain('</script><b>x');
    expect(response.body).toContain('\\u003c/script\\u003e\\u003cb\\u003ex');

    const dictionary = InlineDictionary.parse(scriptJson(response.body, DICTIONARY_ELEMENT_ID));
    expect(dictionary.locale).toBe('de');
    expect(dictionary.messages).toEqual(t.app.dictionaries.get('de')?.messages);
    // Both elements sit in the head, before the page's own scripts run.
    expect(response.body.indexOf(DICTIONARY_ELEMENT_ID)).toBeLessThan(response.body.indexOf('</head>'));
    // The page's script needs an XSRF token before its first POST.
    expect(setCookie(response, 'XSRF-TOKEN')).toBeDefined();
  });

  it('falls back to English when no shipped language fits', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/forgot-password', headers: { 'accept-language': 'ja-JP' } });
    expect(response.body).toContain('<html lang="en">');
    expect(InlineDictionary.parse(scriptJson(response.body, DICTIONARY_ELEMENT_ID)).locale).toBe('en');
  });

  it('answers unknown paths with the app too (the app falls back to sign-in, spec §2)', async () => {
    for (const url of ['/no/such/page', '/index.html', '/foo.bar', '//evil.com']) {
      const response = await t.app.inject({ method: 'GET', url });
      expect(response.statusCode, url).toBe(200);
      expect(response.body, url).toContain(RUNTIME_CONFIG_ELEMENT_ID);
    }
  });

  it('redirects the root to sign-in, keeping the query', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/' });
    expect(response.statusCode).toBe(302);
    expect(response.headers.location).toBe('/sign-in');
    const withFrom = await t.app.inject({ method: 'GET', url: '/?from=%2Fhome' });
    expect(withFrom.headers.location).toBe('/sign-in?from=%2Fhome');
  });

  it('serves hashed assets as immutable and other files briefly', async () => {
    const asset = await t.app.inject({ method: 'GET', url: '/assets/index-abc123.js' });
    expect(asset.statusCode).toBe(200);
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const icon = await t.app.inject({ method: 'GET', url: '/favicon.svg' });
    expect(icon.statusCode).toBe(200);
    expect(icon.headers['cache-control']).toBe('public, max-age=3600');
    const missing = await t.app.inject({ method: 'GET', url: '/assets/missing.js' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({ errorMessage: 'notFound' });
  });

  it('answers /favicon.ico with the icon, not the app or a 404', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/favicon.ico' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^image\/(x-icon|vnd\.microsoft\.icon)$/);
    expect(response.headers['cache-control']).toBe('public, max-age=3600');
    expect(response.rawPayload.equals(await readFile(FAVICON))).toBe(true);
    // An ICO file: reserved 0, type 1 (icon), at least one image.
    expect([...response.rawPayload.subarray(0, 4)]).toEqual([0, 0, 1, 0]);
    expect(response.rawPayload.readUInt16LE(4)).toBeGreaterThan(0);
  });

  it('sends the pre-compressed asset to a browser that accepts it, and the plain one otherwise', async () => {
    const compressed = await t.app.inject({ method: 'GET', url: '/assets/index-abc123.js', headers: { 'accept-encoding': 'br, gzip' } });
    expect(compressed.statusCode).toBe(200);
    expect(compressed.headers['content-encoding']).toBe('br');
    expect(compressed.headers.vary).toContain('Accept-Encoding');
    expect(brotliDecompressSync(compressed.rawPayload).toString()).toBe('console.log("app");');
    const plain = await t.app.inject({ method: 'GET', url: '/assets/index-abc123.js', headers: { 'accept-encoding': 'identity' } });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body).toBe('console.log("app");');
    // The compressed copies have no address of their own.
    expect((await t.app.inject({ method: 'GET', url: '/assets/index-abc123.js.br' })).statusCode).toBe(404);
  });

  it('answers notFound for unknown API paths', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/api/account/nothing' });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({ errorMessage: 'notFound' });
  });

  it('answers a malformed URL with 400 invalidRequest', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/%' });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ errorMessage: 'invalidRequest' });
    // Refused before routing, where no hook runs: the security headers all the same.
    expect(String(response.headers['content-security-policy'])).toContain("frame-ancestors 'none'");
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    expect(response.headers['x-frame-options']).toBe('DENY');
  });

  it('sends the security headers on pages and API answers alike', async () => {
    for (const url of ['/sign-in', '/api/account/session', '/healthz']) {
      const response = await t.app.inject({ method: 'GET', url });
      const csp = String(response.headers['content-security-policy']);
      expect(csp).toContain("default-src 'self'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("object-src 'none'");
      expect(csp).toContain("base-uri 'none'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).not.toContain('unsafe-inline');
      expect(response.headers['x-content-type-options']).toBe('nosniff');
      expect(response.headers['referrer-policy']).toBe('no-referrer');
      expect(response.headers['x-frame-options']).toBe('DENY');
      expect(response.headers['strict-transport-security']).toBeUndefined();
      expect(response.headers['x-powered-by']).toBeUndefined();
    }
  });

  it('serves the OpenAPI document generated from the contract schemas', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/api/openapi.json' });
    expect(response.statusCode).toBe(200);
    const document = response.json<{ openapi: string; paths: Record<string, unknown> }>();
    expect(document.openapi).toMatch(/^3\./);
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining(['/api/account/signin', '/api/account/session', '/api/account/signout', '/healthz']),
    );
  });
});

describe.skipIf(dbUnavailable)('deployed environments', () => {
  it('add HSTS for a year with subdomains, and a Secure session cookie on the COOKIE_DOMAIN parent', async () => {
    const t = await createTestApp({
      env: { FOYER_ENV: 'prod', PUBLIC_URL: 'https://auth.foyer.app', COOKIE_DOMAIN: 'foyer.app', ARGON2_MEMORY_KIB: '7168', ARGON2_TIME: '5' },
    });
    try {
      const response = await t.app.inject({ method: 'GET', url: '/healthz' });
      expect(response.headers['strict-transport-security']).toBe('max-age=31536000; includeSubDomains');
      const page = await t.app.inject({ method: 'GET', url: '/api/account/session' });
      expect(setCookie(page, 'XSRF-TOKEN')).toMatchObject({ secure: true, sameSite: 'Strict' });
      expect(setCookie(page, 'XSRF-TOKEN')?.domain).toBeUndefined();

      // Spec §3: no suffix in prod, the parent domain, Secure.
      const account = await createTestUser(t);
      const signedIn = await postSignIn(t.app, account);
      expect(setCookie(signedIn, 'otter')).toMatchObject({ domain: 'foyer.app', secure: true, httpOnly: true, sameSite: 'Strict' });
    } finally {
      await t.close();
    }
  });

  it('never guess the parent domain: without COOKIE_DOMAIN the session cookie is host-only (decision 0018)', async () => {
    // The last two labels would be `co.uk`, a public suffix every browser refuses.
    const t = await createTestApp({
      env: { FOYER_ENV: 'staging', PUBLIC_URL: 'https://auth.staging.example.co.uk', ARGON2_MEMORY_KIB: '7168', ARGON2_TIME: '5' },
    });
    try {
      const account = await createTestUser(t);
      const cookie = setCookie(await postSignIn(t.app, account), 'otter_staging');
      expect(cookie).toMatchObject({ secure: true, httpOnly: true, sameSite: 'Strict' });
      expect(cookie?.domain).toBeUndefined();
    } finally {
      await t.close();
    }
  });

  it('set and clear the session cookie on the same configured domain', async () => {
    const env = {
      FOYER_ENV: 'staging',
      PUBLIC_URL: 'https://auth.staging.example.co.uk',
      COOKIE_DOMAIN: 'staging.example.co.uk',
      ARGON2_MEMORY_KIB: '7168',
      ARGON2_TIME: '5',
    };
    const t = await createTestApp({ env });
    try {
      const account = await createTestUser(t);
      const signedIn = await postSignIn(t.app, account);
      const otter = setCookie(signedIn, 'otter_staging');
      expect(otter).toMatchObject({ domain: 'staging.example.co.uk', secure: true });
      const signOut = await t.app.inject({
        method: 'POST',
        url: API_BASE + CALLS.signout.path,
        payload: {},
        cookies: { otter_staging: otter?.value ?? '', 'XSRF-TOKEN': 'x'.repeat(43) },
        headers: { 'X-XSRF-TOKEN': 'x'.repeat(43) },
      });
      expect(setCookie(signOut, 'otter_staging')).toMatchObject({ domain: 'staging.example.co.uk', value: '' });
    } finally {
      await t.close();
    }
  });
});

describe.skipIf(dbUnavailable)('without a web build', () => {
  it('starts, and pages answer 503 unavailable while the API works', async () => {
    const t = await createTestApp();
    try {
      const page = await t.app.inject({ method: 'GET', url: '/sign-in' });
      expect(page.statusCode).toBe(503);
      expect(page.json()).toEqual({ errorMessage: 'unavailable' });
      expect((await t.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    } finally {
      await t.close();
    }
  });
});
