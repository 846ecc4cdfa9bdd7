import { relative, sep } from 'node:path';
import fastifyStatic from '@fastify/static';
import { API_BASE, HEALTH_PATH, ROUTES, SSO_BASE, type RuntimeConfig } from '@foyer/contract';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../lib/errors.js';
import { ensureXsrfCookie } from '../../lib/xsrf.js';
import { LIVEZ_PATH, READYZ_PATH } from '../health/probes.routes.js';
import { bestDictionary } from '../i18n/dictionaries.js';
import { METRICS_PATH } from '../metrics/metrics.plugin.js';
import { loadIndexPage } from './index-page.js';

/**
 * Paths the single-page app never owns: their unknown addresses are plain 404s (JSON
 * `notFound`), so a mistyped call or probe fails loudly instead of getting the page with a 200.
 */
const RESERVED_PREFIXES = [API_BASE, '/static', '/assets', HEALTH_PATH, LIVEZ_PATH, READYZ_PATH, METRICS_PATH, '/dev', SSO_BASE, '/ofrep', '/.well-known'];

/**
 * The endings of files a browser, a crawler or a tool fetches as a resource (scripts, styles,
 * images, fonts, data): a missing one is a 404, never the page. Any other address, `/index.html`
 * or `/u/ann.lee` among them, is the app's, which falls back to sign-in (spec §2).
 */
const FILE_EXTENSIONS = new Set(
  ['js', 'mjs', 'cjs', 'css', 'map', 'json', 'txt', 'xml', 'webmanifest', 'wasm', 'br', 'gz', 'zip', 'pdf'].concat([
    'ico',
    'png',
    'jpg',
    'jpeg',
    'gif',
    'svg',
    'webp',
    'avif',
    'bmp',
    'woff',
    'woff2',
    'ttf',
    'otf',
    'eot',
    'mp3',
    'mp4',
    'webm',
  ]),
);

function pathOf(url: string): string {
  const end = url.search(/[?#]/);
  return end === -1 ? url : url.slice(0, end);
}

/**
 * A GET the app's client-side router handles: not reserved, and not a resource file's name. The
 * reserved prefixes are compared with repeated slashes collapsed and in lower case: `//readyz`
 * (a probe's base address with a trailing slash) or `/API/…` is a wrong address to report as
 * such, never the sign-in page answered 200, which a probe would take for a ready service.
 */
export function isPagePath(path: string): boolean {
  const reservedForm = path.replace(/\/{2,}/g, '/').toLowerCase();
  if (RESERVED_PREFIXES.some((prefix) => reservedForm === prefix || reservedForm.startsWith(`${prefix}/`))) return false;
  const last = path.slice(path.lastIndexOf('/') + 1);
  const dot = last.lastIndexOf('.');
  return dot === -1 || !FILE_EXTENSIONS.has(last.slice(dot + 1).toLowerCase());
}

/**
 * Serves the built web app (WEB_DIST): hashed assets cached for a year, other files briefly, and
 * every page route answered with index.html carrying the runtime config, with the flags as they
 * are now (decision 0024), and the visitor's dictionary. Registered last, as it owns the
 * not-found handler.
 */
export async function registerWeb(app: FastifyInstance, runtimeConfig: RuntimeConfig): Promise<void> {
  const page = loadIndexPage(app.config.webDist, app.dictionaries);
  if (page === undefined) {
    app.log.warn({ webDist: app.config.webDist }, 'web app not built (no index.html): pages answer 503 until it is');
  } else {
    await app.register(fastifyStatic, {
      root: app.config.webDist,
      prefix: '/',
      // One route per file found at start: no file-system lookup for page or API requests.
      wildcard: false,
      index: false,
      // The web build writes .br and .gz beside each asset (packages/web/scripts/compress.mjs):
      // sent to browsers that accept them, never served under their own names.
      preCompressed: true,
      globIgnore: ['index.html', '**/*.br', '**/*.gz'],
      cacheControl: false,
      setHeaders(res, filePath) {
        // Vite puts content-hashed files under assets/: they never change under one name. Judged
        // by the path inside the web build, wherever that build is installed.
        const immutable = relative(app.config.webDist, filePath).startsWith(`assets${sep}`);
        res.setHeader('cache-control', immutable ? 'public, max-age=31536000, immutable' : 'public, max-age=3600');
        // Shared caches must keep the brotli, gzip and plain copies apart.
        res.setHeader('vary', 'Accept-Encoding');
      },
    });
  }

  // Spec §2: the root redirects to sign-in (the query, such as `from`, goes along).
  app.get('/', { schema: { hide: true } }, async (request, reply) => {
    const query = request.url.indexOf('?');
    return reply.redirect(query === -1 ? ROUTES.signIn : ROUTES.signIn + request.url.slice(query), 302);
  });

  const servePage = async (request: FastifyRequest, reply: FastifyReply) => {
    if (page === undefined) throw new AppError('unavailable');
    // Evaluated per page (at most a second old): a flag changed at the flag service shows on the next page.
    const { flags } = await app.flags.current();
    ensureXsrfCookie(request, reply, app.config);
    const dictionary = bestDictionary(app.dictionaries, request.headers['accept-language']);
    return (
      reply
        .code(200)
        .header('content-type', 'text/html; charset=utf-8')
        // The page carries a per-visitor language and must never be served stale after a deploy.
        .header('cache-control', 'no-store')
        .header('vary', 'Accept-Language')
        .send(page.render(dictionary, { ...runtimeConfig, flags }))
    );
  };

  app.setNotFoundHandler(async (request, reply) => {
    if ((request.method === 'GET' || request.method === 'HEAD') && isPagePath(pathOf(request.url))) {
      return servePage(request, reply);
    }
    throw new AppError('notFound');
  });
}
