import { DEVICE_ID_HEADER } from '@foyer/contract';
import type { FastifyRequest } from 'fastify';
import type { Deps } from '../../deps.js';
import { AppError } from '../../lib/errors.js';
import { sessionCookieName } from '../../lib/cookies.js';
import { authenticate, type ActiveSession } from './sessions.service.js';

const DEVICE_HEADER = DEVICE_ID_HEADER.toLowerCase();

/**
 * The session token of a request: `Authorization: Bearer <otter>` (native clients, the forum;
 * spec §3) or else the session cookie (the web app, which never handles the token in script).
 */
export function readSessionToken(request: FastifyRequest, deps: Pick<Deps, 'config'>): string | undefined {
  const authorization = request.headers.authorization;
  if (typeof authorization === 'string') {
    const match = /^Bearer ([^\s]+)$/i.exec(authorization.trim());
    if (match) return match[1];
  }
  return request.cookies[sessionCookieName(deps.config)];
}

export function readDeviceId(request: FastifyRequest): string | undefined {
  const value = request.headers[DEVICE_HEADER];
  return typeof value === 'string' ? value : undefined;
}

/** The request's session, or null when it is not signed in (or from another device). */
export function currentSession(deps: Pick<Deps, 'db' | 'config' | 'clock'>, request: FastifyRequest): Promise<ActiveSession | null> {
  return authenticate(deps, { token: readSessionToken(request, deps), deviceId: readDeviceId(request) });
}

/** As currentSession, for routes that need a signed-in account: otherwise 401 notSignedIn. */
export async function requireSession(deps: Pick<Deps, 'db' | 'config' | 'clock'>, request: FastifyRequest): Promise<ActiveSession> {
  const session = await currentSession(deps, request);
  if (session === null) throw new AppError('notSignedIn');
  return session;
}
