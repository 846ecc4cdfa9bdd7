import helmet from '@fastify/helmet';
import type { FastifyInstance } from 'fastify';
import { isDeployed, type Config } from '../config.js';

const ONE_YEAR_S = 365 * 24 * 60 * 60;

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
        scriptSrc: ["'self'"],
        styleSrc: ["'self'"],
        imgSrc: ["'self'", 'data:'],
        fontSrc: ["'self'"],
        connectSrc: ["'self'"],
        frameSrc: ["'self'"],
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
