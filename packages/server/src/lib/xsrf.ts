import { COOKIE_BASE_NAMES, XSRF_HEADER, cookieRules } from '@foyer/contract';
import type { FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Config } from '../config.js';
import { randomToken, safeEqual } from './crypto.js';
import { AppError } from './errors.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * Set only on routes a third party posts to without our page's script, such as the SAML
     * assertion consumer under /sso; they carry their own proof (a signed assertion).
     */
    xsrfExempt?: boolean;
  }
}

/** Spec §7: the page reads cookie `XSRF-TOKEN` and sends it back as header `X-XSRF-TOKEN`. */
export const XSRF_COOKIE = COOKIE_BASE_NAMES.xsrf;
const HEADER = XSRF_HEADER.toLowerCase();
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;
const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

function cookieToken(request: FastifyRequest): string | undefined {
  const value = request.cookies[XSRF_COOKIE];
  return value !== undefined && TOKEN_PATTERN.test(value) ? value : undefined;
}

/**
 * Gives the browser an XSRF token when it has none. Script-readable by design (the page copies
 * it into the header), SameSite=Strict, host-only, Secure except on localhost.
 */
export function ensureXsrfCookie(request: FastifyRequest, reply: FastifyReply, config: Config): void {
  if (cookieToken(request) !== undefined) return;
  const { path, sameSite, secure } = cookieRules(config.publicHostname, config.env, true);
  reply.setCookie(XSRF_COOKIE, randomToken(), { path, sameSite, secure, httpOnly: false });
}

/**
 * Double-submit XSRF check (spec §7; ASVS V3.5.1): every state-changing request must send the
 * header equal to the cookie. Another site can make the browser send the cookie but cannot read
 * it to forge the header. Applies to every route unless it opts out with `xsrfExempt`.
 */
export const xsrfPlugin = fp<{ config: Config }>(
  async (app, { config }) => {
    app.addHook('onRequest', async (request, reply) => {
      if (request.url.startsWith('/api/')) ensureXsrfCookie(request, reply, config);
      if (!STATE_CHANGING.has(request.method) || request.routeOptions.config.xsrfExempt === true) return;
      const cookie = cookieToken(request);
      const header = request.headers[HEADER];
      if (cookie === undefined || typeof header !== 'string' || !safeEqual(header, cookie)) {
        request.log.info({ reason: cookie === undefined ? 'no cookie' : 'header mismatch' }, 'xsrf check failed');
        throw new AppError('xsrfMismatch');
      }
    });
  },
  { name: 'foyer-xsrf', dependencies: ['@fastify/cookie'] },
);
