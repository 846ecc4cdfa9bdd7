import { LIMITS, normalizeEmail } from '@foyer/contract';
import type { Deps } from '../../deps.js';
import { AppError } from '../../lib/errors.js';
import { recordAudit, type RequestMeta } from '../audit/audit.service.js';
import { findUserByEmailKey, setPasswordHash } from '../users/users.repo.js';
import { clearFailures, findLockedUntil, recordFailure } from './signin.repo.js';

const LOCK_MS = LIMITS.accountLockMinutes * 60 * 1000;

export interface SignInInput {
  email: string;
  /** SHA-256 hex of the password (spec §5). Never logged, never stored. */
  hashPassword: string;
}

/**
 * Checks an email and password and returns the account id, or throws the spec's code (§8).
 *
 * The order closes account enumeration (ASVS V6.3.8, ARCHITECTURE.md): every path that stops
 * before the password matched costs one argon2 verification and answers the same for known and
 * unknown emails; whether an account is deactivated or unverified is told only to someone who
 * knows its password. Failures count per email, known or not (spec §9: 30-minute lock).
 */
export async function verifyCredentials(deps: Deps, input: SignInInput, meta: RequestMeta): Promise<string> {
  const emailKey = normalizeEmail(input.email);
  const { clock, config, passwords } = deps;

  const lockedUntil = await findLockedUntil(deps.db, emailKey);
  if (lockedUntil !== null && lockedUntil > clock.now()) {
    // Same work as a real attempt, so a lock cannot be told apart by timing either.
    await passwords.verifyDummy(input.hashPassword);
    const locked = await findUserByEmailKey(deps.db, emailKey);
    await recordAudit(deps, { type: 'signin.locked', meta, userId: locked?.id ?? null, emailKey, detail: { reason: 'locked' } });
    throw new AppError('accountLocked');
  }

  const user = await findUserByEmailKey(deps.db, emailKey);
  const storedHash = user?.password_hash ?? null;
  const matched =
    storedHash === null ? await passwords.verifyDummy(input.hashPassword) : await passwords.verify(storedHash, input.hashPassword);

  if (!matched || user === undefined || storedHash === null) {
    const now = clock.now();
    const count = await recordFailure(deps.db, { emailKey, now, threshold: config.lockoutThreshold, lockUntil: now + LOCK_MS });
    const reason = user === undefined ? 'unknownEmail' : user.password_hash === null ? 'noPassword' : 'wrongPassword';
    const userId = user?.id ?? null;
    await recordAudit(deps, { type: 'signin.failure', meta, userId, emailKey, detail: { reason, failures: count.failures } });
    if (count.lockedUntil !== null && count.lockedUntil > now) {
      await recordAudit(deps, { type: 'signin.locked', meta, userId, emailKey, detail: { reason: 'threshold', failures: count.failures } });
      throw new AppError('accountLocked');
    }
    throw new AppError('invalidCredentials');
  }

  // From here on the caller knows the password, so the account's state may be told.
  if (user.deactivated_at !== null) {
    await recordAudit(deps, { type: 'signin.failure', meta, userId: user.id, emailKey, detail: { reason: 'deactivated' } });
    throw new AppError('deactivatedAccount');
  }
  if (user.email_verified_at === null) {
    await recordAudit(deps, { type: 'signin.failure', meta, userId: user.id, emailKey, detail: { reason: 'unverified' } });
    throw new AppError('unverifiedAccount');
  }

  await clearFailures(deps.db, emailKey);
  if (passwords.needsRehash(storedHash)) {
    // Parameters were raised since this hash was made: store it at today's cost (ASVS V11.4.2).
    await setPasswordHash(deps.db, user.id, await passwords.hash(input.hashPassword), clock.now());
  }
  await recordAudit(deps, { type: 'signin.success', meta, userId: user.id, emailKey, detail: { method: 'password' } });
  return user.id;
}
