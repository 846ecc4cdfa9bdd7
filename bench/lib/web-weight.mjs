// What a first visit of each route fetches: Debian Chromium (through playwright-core) loads the
// route from the running server with an empty cache; every JavaScript and CSS response is
// gzipped here (level 9), so the figure does not depend on how the server compresses.
import { gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';

export const CHROMIUM_PATH = process.env.CHROME_PATH ?? '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * Telltales of the password-strength dictionaries (@zxcvbn-ts language packs): the opening of the
 * common-password list in the packs' compressed form (4.x: "A123456ApasswordA12345678…"), as a
 * JSON array (3.x), and the packs' dictionary keys. Not the bare word "zxcvbn": a lazy import's
 * chunk name may carry it without loading a byte of dictionary.
 */
const DICTIONARY_MARKERS = [/A123456ApasswordA12345678/, /"123456","password","12345678"/, /passwords-common/, /AyouAtheBoA/];

function kind(response) {
  const type = response.request().resourceType();
  const contentType = response.headers()['content-type'] ?? '';
  if (type === 'script' || /javascript/.test(contentType)) return 'js';
  if (type === 'stylesheet' || /text\/css/.test(contentType)) return 'css';
  return null;
}

export async function measureWebWeight(baseUrl, routes) {
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  const results = {};
  try {
    for (const route of routes) {
      // A new context per route: an empty cache, as on a first visit.
      const context = await browser.newContext();
      // Only the server under test is reachable here: anything else (in production /sign-up hands
      // over to the marketing site, spec §2) is refused at once instead of waiting for DNS.
      const origin = new URL(baseUrl).origin;
      const elsewhere = [];
      await context.route(
        (url) => url.origin !== origin,
        (route) => {
          elsewhere.push(route.request().url());
          return route.abort('blockedbyclient');
        },
      );
      const page = await context.newPage();
      const pending = [];
      const problems = [];
      page.on('requestfailed', (request) => {
        if (new URL(request.url()).origin === origin) problems.push(`${request.url()} failed: ${request.failure()?.errorText ?? '?'}`);
      });
      page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
      page.on('response', (response) => {
        // A call's 4xx is the service answering (a signed-out visitor's session check, a reset
        // link that is no token): only a failing asset or page, or any 5xx, voids the figure.
        const isCall = new URL(response.url()).pathname.startsWith('/api/');
        if (response.status() >= 500 || (response.status() >= 400 && !isCall)) problems.push(`${response.url()} answered ${response.status()}`);
        const type = kind(response);
        if (type === null) return;
        pending.push(
          response
            .body()
            .then((body) => ({
              url: new URL(response.url()).pathname,
              type,
              status: response.status(),
              raw: body.length,
              gzip: gzipSync(body, { level: 9 }).length,
              dictionaries: DICTIONARY_MARKERS.some((marker) => marker.test(body.toString('utf8'))),
            }))
            .catch((error) => ({ url: response.url(), type, status: response.status(), error: error.message })),
        );
      });
      const response = await page.goto(baseUrl + route, { waitUntil: 'networkidle' });
      // Lazy chunks that the route asks for after its first render are part of its first load.
      await page.waitForTimeout(500);
      const files = await Promise.all(pending);
      // The page may have handed over to another site (the first navigation elsewhere is kept).
      const leftFor = elsewhere.find((url) => !/\.(js|css|png|svg|woff2?)(\?|$)/.test(url)) ?? null;
      // A page that rendered nothing (a stale build, a script blocked by the CSP) measures nothing.
      const rendered =
        leftFor !== null || (await page.evaluate(() => (globalThis.document.getElementById('root')?.childElementCount ?? 0) > 0).catch(() => false));
      if (!rendered) problems.push('the page rendered nothing into #root');
      if (!files.some((file) => file.type === 'js')) problems.push('no JavaScript was fetched');
      for (const file of files) if (file.error) problems.push(`${file.url}: ${file.error}`);
      const sum = (type, field) => files.filter((file) => file.type === type && !file.error).reduce((total, file) => total + file[field], 0);
      results[route] = {
        status: response?.status() ?? null,
        jsGzipBytes: sum('js', 'gzip'),
        cssGzipBytes: sum('css', 'gzip'),
        jsRawBytes: sum('js', 'raw'),
        cssRawBytes: sum('css', 'raw'),
        dictionaries: files.some((file) => file.dictionaries),
        rendered,
        leftFor,
        problems,
        files,
      };
      await context.close();
    }
  } finally {
    await browser.close();
  }
  return results;
}
