import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import helmet, { type HelmetOptions } from 'helmet';
import { isDeployed, type Config } from '../config.js';

const ONE_YEAR_S = 365 * 24 * 60 * 60;

/**
 * Google's published CSP sources for reCAPTCHA, allowed only when a site key makes the sign-up
 * and forgot-password pages load it (spec §5); otherwise the policy stays 'self' only.
 */
const RECAPTCHA_SCRIPT_SOURCES = ['https://www.google.com/recaptcha/', 'https://www.gstatic.com/recaptcha/'];
const RECAPTCHA_FRAME_SOURCES = ['https://www.google.com/recaptcha/', 'https://recaptcha.google.com/recaptcha/'];

/**
 * Security headers on every answer. A strict CSP without 'unsafe-inline' (the page's inline
 * config is `type="application/json"`, which CSP does not execute); no referrer, because emailed
 * links carry tokens in the path; HSTS only where TLS is real (never on localhost, where it
 * would pin the browser to https for every local project).
 */
export async function registerSecurityHeaders(app: FastifyInstance, config: Config): Promise<void> {
  const headers = helmetHeaders({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'", ...(config.reCaptchaSiteKey === undefined ? [] : RECAPTCHA_SCRIPT_SOURCES)],
        styleSrc: ["'self'"],
        imgSrc: ["'self'", 'data:'],
        fontSrc: ["'self'"],
        connectSrc: ["'self'"],
        frameSrc: ["'self'", ...(config.reCaptchaSiteKey === undefined ? [] : RECAPTCHA_FRAME_SOURCES)],
        frameAncestors: ["'none'"],
        objectSrc: ["'none'"],
        baseUri: ["'none'"],
        formAction: ["'self'"],
      },
    },
    // Clickjacking: no one may frame these pages (matches frame-ancestors 'none').
    xFrameOptions: { action: 'deny' },
    referrerPolicy: { policy: 'no-referrer' },
    strictTransportSecurity: isDeployed(config.env) ? { maxAge: ONE_YEAR_S, includeSubDomains: true } : false,
    xContentTypeOptions: true,
  });
  // The headers are the same for every answer, so they are worked out once at boot: helmet's
  // Fastify plugin rebuilds the middleware and re-parses the policy on every request, which cost
  // a tenth of the session check's main thread (bench/README.md).
  app.addHook('onRequest', (_request, reply, done) => {
    void reply.headers(headers);
    done();
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
