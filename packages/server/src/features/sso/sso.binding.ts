import { cookieName, cookieRules } from '@foyer/contract';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../config.js';
import { randomToken, sha256Hex } from '../../lib/crypto.js';
import type { TokenRow } from '../tokens/tokens.js';
import { lifetimeOf } from '../tokens/purposes.js';

/**
 * Decision 0022 (ASVS V10.1.2): a company sign-in belongs to the browser that started it. The
 * start call gives the browser a random value in an HttpOnly, SameSite=Strict cookie and keeps its
 * SHA-256 with the waiting request; the provider's answer passes it on to the transfer token; only
 * a request carrying the same cookie exchanges that token. Without it, whoever started a sign-in
 * could hand the provider's answer (a callback address, an auto-posting form) to someone else's
 * browser and sign that browser in to the starter's account.
 *
 * The cookie crosses neither the provider's redirect nor its cross-site POST (SameSite=Strict):
 * it is read by the start and by the exchange, both calls of this site's own pages.
 */
const BINDING_COOKIE = 'sso_binding';
const VALUE_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export function bindingCookieName(config: Pick<Config, 'env'>): string {
  return cookieName(BINDING_COOKIE, config.env);
}

/**
 * What a desktop client's sign-in keeps instead of a browser's binding: its token is handed to the
 * app (`foyer://`), which exchanges it without this browser's cookies, and never by this site's
 * own pages. Not a SHA-256, so no cookie can match it.
 */
export const DESKTOP_HANDOFF = 'desktop';

/** What an exchange presents: the SHA-256 of its binding cookie, and whether this site's own page sent it. */
export interface PresentedBinding {
  hash: string | undefined;
  fromOwnPage: boolean;
}

export function presentedBinding(request: FastifyRequest, config: Config): PresentedBinding {
  const value = request.cookies[bindingCookieName(config)];
  // A browser says where a call comes from (Sec-Fetch-Site, Origin); an app's HTTP client does not.
  const site = request.headers['sec-fetch-site'];
  const origin = request.headers.origin;
  return {
    hash: value !== undefined && VALUE_PATTERN.test(value) ? sha256Hex(value) : undefined,
    fromOwnPage: site === 'same-origin' || site === 'same-site' || (origin !== undefined && origin === new URL(config.publicUrl).origin),
  };
}

/**
 * The binding of the browser starting a sign-in: the one it already holds (sign-ins started in two
 * tabs both stay usable), else a new one. `hash` goes with the waiting request; `keep` sets the
 * cookie once the start has succeeded (a refused start leaves the browser as it was), for as long
 * as a request waits and its token lives. Host-only, whatever COOKIE_DOMAIN says: only this
 * service reads it, so the forum and the marketing site never receive it.
 */
export function browserBinding(request: FastifyRequest, config: Config): { hash: string; keep: (reply: FastifyReply, requestLifetimeMs: number) => void } {
  const held = request.cookies[bindingCookieName(config)];
  const value = held !== undefined && VALUE_PATTERN.test(held) ? held : randomToken();
  return {
    hash: sha256Hex(value),
    keep: (reply, requestLifetimeMs) => {
      reply.setCookie(bindingCookieName(config), value, {
        ...cookieRules(config.publicHostname, config.env, false),
        maxAge: Math.ceil((requestLifetimeMs + lifetimeOf('transfer')) / 1000),
      });
    },
  };
}

/**
 * Whether a transfer token may be exchanged by this request: unbound (Google's, an IdP-initiated
 * sign-in's), bound to the browser presenting it, or a desktop client's presented by anything but
 * this site's own pages (the page never exchanges one, so a browser sent to `/ssol/<its token>`
 * is someone else's).
 */
export function bindingHolds(row: Pick<TokenRow, 'binding_hash'>, presented: PresentedBinding): boolean {
  if (row.binding_hash === null) return true;
  if (row.binding_hash === DESKTOP_HANDOFF) return !presented.fromOwnPage;
  return row.binding_hash === presented.hash;
}
