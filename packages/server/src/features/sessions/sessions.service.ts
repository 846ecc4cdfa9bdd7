import type { SessionUser } from '@foyer/contract';
import type { Config } from '../../config.js';
import type { Deps } from '../../deps.js';
import { randomToken, sha256Hex } from '../../lib/crypto.js';
import type { UnitOfWork } from '../../lib/unit-of-work.js';
import type { UserRow } from '../users/users.repo.js';
import type { SessionKind } from '../../db/schema.js';
import { DEVICE_TOKEN_LIFETIME, deleteSession, findSessionWithUser, insertSession, touchSession, type NewSession } from './sessions.repo.js';

/** last_seen_at moves at most once an hour, so checking a session is almost always a pure read. */
export const TOUCH_INTERVAL_MS = 60 * 60 * 1000;

/** The API shape of an account; the only place a row becomes something a client sees. */
export function toSessionUser(row: Pick<UserRow, 'id' | 'email' | 'first_name' | 'last_name' | 'email_verified_at'>): SessionUser {
  return {
    id: row.id,
    email: row.email,
    firstName: row.first_name,
    lastName: row.last_name,
    emailVerified: row.email_verified_at !== null,
  };
}

/** 32 random bytes in base64url. */
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export interface StartedSession {
  /** The token (spec §3: otter). Returned once; only its SHA-256 is stored. */
  token: string;
  expiresAt: number;
}

export interface ActiveSession {
  id: string;
  userId: string;
  kind: SessionKind;
  user: SessionUser;
  /** The account's normalised email, for audit rows written on its behalf. */
  emailKey: string;
  /** The earlier of the absolute and the idle expiry. */
  expiresAt: number;
}

/**
 * Starts a session for an authenticated account on one device. Every way of signing in (password,
 * setup link, verify email, Google, SSO) makes its session with `newSession`, here or in one
 * statement with its other writes, so every session gets a fresh token (ASVS V7.2.4) bound to the
 * device that asked for it.
 */
export async function createSession(
  uow: UnitOfWork,
  config: Pick<Config, 'session'>,
  input: { userId: string; deviceId: string; kind?: SessionKind },
): Promise<StartedSession> {
  const { row, started } = newSession(uow.now, config, input);
  await insertSession(uow.db, row);
  return started;
}

/**
 * A new session's row and what its holder is given: the token, once, and the earlier of its two
 * expiries. For a caller that writes the row together with other rows in one statement.
 */
export function newSession(
  now: number,
  config: Pick<Config, 'session'>,
  input: { userId: string; deviceId: string; kind?: SessionKind },
): { row: NewSession; started: StartedSession } {
  const token = randomToken();
  const kind = input.kind ?? 'browser';
  const lifetime = lifetimeOf(kind, config);
  const expiresAt = now + lifetime.absoluteMs;
  return {
    row: {
      id: sha256Hex(token),
      user_id: input.userId,
      device_id: input.deviceId,
      created_at: now,
      last_seen_at: now,
      expires_at: expiresAt,
      kind,
    },
    started: { token, expiresAt: Math.min(expiresAt, now + lifetime.idleMs) },
  };
}

/** A browser session follows SESSION_*_DAYS; a device token is long-lived (decision 0021). */
function lifetimeOf(kind: SessionKind, config: Pick<Config, 'session'>): { absoluteMs: number; idleMs: number } {
  return kind === 'device' ? DEVICE_TOKEN_LIFETIME : config.session;
}

/**
 * The session a token and device id stand for, or null. A token presented from another device
 * than the one it was issued to is ignored: a copied token alone is not enough.
 */
export async function authenticate(
  deps: Pick<Deps, 'db' | 'config' | 'clock'>,
  credentials: { token: string | undefined; deviceId: string | undefined },
): Promise<ActiveSession | null> {
  const { token, deviceId } = credentials;
  if (token === undefined || deviceId === undefined || !TOKEN_PATTERN.test(token)) return null;
  const row = await findSessionWithUser(deps.db, sha256Hex(token));
  if (row === undefined || row.device_id !== deviceId) return null;

  const now = deps.clock.now();
  const { idleMs } = lifetimeOf(row.kind, deps.config);
  // Absolute and idle timeouts (ASVS V7.3.1, V7.3.2); a dead row is removed when it is seen.
  if (now >= row.expires_at || now >= row.last_seen_at + idleMs || row.deactivated_at !== null) {
    await deleteSession(deps.db, row.id);
    return null;
  }
  let lastSeen = row.last_seen_at;
  if (now - lastSeen >= TOUCH_INTERVAL_MS) {
    await touchSession(deps.db, row.id, now);
    lastSeen = now;
  }
  return {
    id: row.id,
    userId: row.user_id,
    kind: row.kind,
    user: toSessionUser({ ...row, id: row.user_id }),
    emailKey: row.email_key,
    expiresAt: Math.min(row.expires_at, lastSeen + idleMs),
  };
}

/**
 * Ends the session a token stands for, whichever device presents it (ASVS V7.4.1). Returns the
 * account whose session ended, if any.
 */
export async function endSession(deps: Pick<Deps, 'db'>, token: string | undefined): Promise<string | undefined> {
  const id = sessionIdOf(token);
  return id === undefined ? undefined : deleteSession(deps.db, id);
}

/** The id of the session a token would stand for (its SHA-256); none for what is not a token. */
export function sessionIdOf(token: string | undefined): string | undefined {
  return token === undefined || !TOKEN_PATTERN.test(token) ? undefined : sha256Hex(token);
}
