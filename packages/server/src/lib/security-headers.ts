import type { IncomingMessage, ServerResponse } from 'node:http';
import { API_BASE, SSO_BASE, type ErrorBody } from '@foyer/contract';
import type { FastifyInstance } from 'fastify';
import helmet, { type HelmetOptions } from 'helmet';
import { isDeployed, type Config } from '../config.js';
import { thirdPartySources } from './third-party-csp.js';

const ONE_YEAR_S = 365 * 24 * 60 * 60;

/**
 * Google's published CSP sources for reCAPTCHA, allowed only when a site key makes the sign-up
 * and forgot-password pages load it (spec §5); otherwise the policy stays 'self' only.
 */
const RECAPTCHA_SCRIPT_SOURCES = ['https://www.google.com/recaptcha/', 'https://www.gstatic.com/recaptcha/'];
const RECAPTCHA_FRAME_SOURCES = ['https://www.google.com/recaptcha/', 'https://recaptcha.google.com/recaptcha/'];

/**
 * Security headers on every answer. A strict CSP without 'unsafe-inline' (the page's inline
 * config is `type="application/json"`, which CSP does not execute; only a configured support
 * widget brings it, for styles, decision 0025); no referrer, because emailed
 * links carry tokens in the path; HSTS only where TLS is real (never on localhost, where it
 * would pin the browser to https for every local project). Also refuses requests whose headers
 * carry characters HTTP forbids, and keeps API answers out of every cache (decision 0015).
 */
export async function registerSecurityHeaders(app: FastifyInstance, config: Config, headers = securityHeadersFor(config)): Promise<void> {
  // The headers are the same for every answer, so they are worked out once at boot: helmet's
  // Fastify plugin rebuilds the middleware and re-parses the policy on every request, which cost
  // a tenth of the session check's main thread (bench/README.md).
  app.addHook('onRequest', (_request, reply, done) => {
    void reply.headers(headers);
    done();
  });
  refuseForbiddenHeaderCharacters(app);
  forbidCachingOfAccountAnswers(app);
}

/**
 * The security headers of every answer, for this configuration. Also for the answers no hook
 * sees: what the router refuses before routing, what Node's HTTP parser refuses, and what a
 * stopping service refuses (app.ts, http-server.ts).
 */
export function securityHeadersFor(config: Config): Record<string, string> {
  // Decision 0025: the tag manager's and the support widget's sources, when they are configured.
  const third = thirdPartySources(config);
  return helmetHeaders({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'", ...(config.reCaptchaSiteKey === undefined ? [] : RECAPTCHA_SCRIPT_SOURCES), ...(third.scriptSrc ?? [])],
        styleSrc: ["'self'", ...(third.styleSrc ?? [])],
        imgSrc: ["'self'", 'data:', ...(third.imgSrc ?? [])],
        fontSrc: ["'self'", ...(third.fontSrc ?? [])],
        connectSrc: ["'self'", ...foreignOrigin(config.analyticsUrl, config.publicUrl), ...(third.connectSrc ?? [])],
        ...(third.mediaSrc === undefined ? {} : { mediaSrc: ["'self'", ...third.mediaSrc] }),
        frameSrc: [
          "'self'",
          ...(config.reCaptchaSiteKey === undefined ? [] : RECAPTCHA_FRAME_SOURCES),
          ...foreignOrigin(config.communityTermsUrl, config.publicUrl),
        ],
        frameAncestors: ["'none'"],
        objectSrc: ["'none'"],
        baseUri: ["'none'"],
        formAction: ["'self'", ...(third.formAction ?? [])],
      },
    },
    // Clickjacking: no one may frame these pages (matches frame-ancestors 'none').
    xFrameOptions: { action: 'deny' },
    referrerPolicy: { policy: 'no-referrer' },
    strictTransportSecurity: isDeployed(config.env) ? { maxAge: ONE_YEAR_S, includeSubDomains: true } : false,
    xContentTypeOptions: true,
  });
}

/**
 * Decision 0021: the page may reach the analytics endpoint and frame the community terms page,
 * each by its exact origin only (not the forum's whole site, not a wildcard); one on this
 * service's own origin is already 'self'.
 */
function foreignOrigin(url: string | undefined, publicUrl: string): string[] {
  if (url === undefined) return [];
  const { origin } = new URL(url);
  return origin === new URL(publicUrl).origin ? [] : [origin];
}

/** Answers of these paths are about one person: their account, their session token. */
const PRIVATE_PREFIXES = [`${API_BASE}/`, `${SSO_BASE}/`];

/**
 * `no-store` on every API and SSO answer, errors and 404s included: they carry the session token
 * (`otter`), the account's name and email, or say whether someone is signed in, and a shared
 * cache or the browser's back-forward cache must not keep them for the next person. onSend sees
 * every answer, also those the error handler and the not-found handler write.
 */
function forbidCachingOfAccountAnswers(app: FastifyInstance): void {
  app.addHook('onSend', (request, reply, payload, done) => {
    if (PRIVATE_PREFIXES.some((prefix) => request.url.startsWith(prefix))) void reply.header('cache-control', 'no-store');
    done(null, payload);
  });
}

/**
 * The controls RFC 9110 §5.5 forbids in a field value: all of C0 except tab, and DEL. Node's
 * parser refuses them on the wire, but not every way in does (an HTTP/2 front end, injected
 * requests); a header such as X-DeviceId or User-Agent would then carry a NUL to PostgreSQL.
 */
// eslint-disable-next-line no-control-regex -- matching control characters is this rule's purpose.
const FORBIDDEN_IN_HEADER = /[\u0000-\u0008\u000a-\u001f\u007f]/;

function refuseForbiddenHeaderCharacters(app: FastifyInstance): void {
  app.addHook('onRequest', (request, reply, done) => {
    const fields = Object.entries(request.headers)
      .filter(([, value]) => (Array.isArray(value) ? value : [value ?? '']).some((item) => FORBIDDEN_IN_HEADER.test(item)))
      .map(([name]) => name);
    if (fields.length === 0) {
      done();
      return;
    }
    const body: ErrorBody = { errorMessage: 'invalidRequest', fields };
    void reply.code(400).send(body);
  });
}

/** Runs helmet once against a recording response and keeps the headers it set. */
function helmetHeaders(options: Readonly<HelmetOptions>): Record<string, string> {
  const headers: Record<string, string> = {};
  const recorder = {
    setHeader(name: string, value: string | number | readonly string[]) {
      headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
    },
    removeHeader(name: string) {
      delete headers[name.toLowerCase()];
    },
  };
  helmet(options)({} as IncomingMessage, recorder as unknown as ServerResponse, (error?: unknown) => {
    if (error) throw error instanceof Error ? error : new Error(String(error));
  });
  return headers;
}
