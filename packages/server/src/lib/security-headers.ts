import helmet from '@fastify/helmet';
import type { FastifyInstance } from 'fastify';
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
  await app.register(helmet, {
    global: true,
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
}
