import { COOKIE_BASE_NAMES, cookieName, cookieRules } from '@foyer/contract';
import type { FastifyReply } from 'fastify';
import type { Config } from '../config.js';

export function sessionCookieName(config: Config): string {
  return cookieName(COOKIE_BASE_NAMES.otter, config.env);
}

/**
 * Spec §3 cookie rules: the parent domain COOKIE_DOMAIN names (host-only without it, decision
 * 0018), SameSite=Strict, Secure except on loopback in local and test (contract storage.ts);
 * HttpOnly so no script (and no injected script) can read the session token.
 */
export function setSessionCookie(reply: FastifyReply, config: Config, token: string): void {
  reply.setCookie(sessionCookieName(config), token, {
    ...cookieRules(config.publicHostname, config.env, false, config.cookieDomain),
    maxAge: Math.floor(config.session.absoluteMs / 1000),
  });
}

export function clearSessionCookie(reply: FastifyReply, config: Config): void {
  reply.clearCookie(sessionCookieName(config), cookieRules(config.publicHostname, config.env, false, config.cookieDomain));
}
