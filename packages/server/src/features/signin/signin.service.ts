import { normalizeEmail } from '@foyer/contract';
import type { Deps } from '../../deps.js';
import { AppError, isAppError } from '../../lib/errors.js';
import { unitOfWork } from '../../lib/unit-of-work.js';
import { auditRow, recordAudit, type RequestMeta } from '../audit/audit.service.js';
import { checkingReserved, giveBack, reserveUnlessSso, settleFailure } from '../lockout/lockout.service.js';
import { emailDomain } from '../organizations/organizations.service.js';
import { CredentialsChanged } from '../sessions/session-start.repo.js';
import { newSession, sessionIdOf, type StartedSession } from '../sessions/sessions.service.js';
import { findPendingCredentials } from '../signup/signup.repo.js';
import { lifetimeOf } from '../tokens/purposes.js';
import { rehashPassword } from '../users/users.repo.js';
import { writeSignInSuccess, type SignInSuccess } from './signin.repo.js';

/**
 * How many of an email's newest pending sign-ups a failed password is also checked against
 * (decision 0014). Each is one more argon2 verification, so the number is small and fixed; the
 * per-email sign-up limit keeps more from piling up.
 */
const PENDING_SIGNUPS_CHECKED = 3;

export interface SignInInput {
  email: string;
  /** SHA-256 hex of the password (spec §5). Never logged, never stored. */
  hashPassword: string;
}

/**
 * The id of the email's pending sign-up whose password this is, if any. Asked whether or not the
 * email has an account, so a sign-up followed by a sign-in with the same password answers
 * unverifiedAccount in both cases: the pair cannot tell which emails have accounts. The resend
 * after such a sign-in (decision 0020) mails that sign-up's link.
 */
export async function matchingPendingSignup(deps: Deps, emailKey: string, hashPassword: string, now: number): Promise<string | undefined> {
  const since = now - lifetimeOf('verifyEmail');
  const pending = await findPendingCredentials(deps.db, { emailKey, since, limit: PENDING_SIGNUPS_CHECKED });
  const results = await Promise.all(
    pending.map(async (row) => (row.password_hash !== null && (await deps.passwords.verify(row.password_hash, hashPassword)) ? row.id : undefined)),
  );
  return results.find((id) => id !== undefined);
}

/** Undefined for a hash the threads turned away (503 `unavailable`); any other failure goes on. */
function unlessBusy(error: unknown): undefined {
  if (isAppError(error) && error.code === 'unavailable') return undefined;
  throw error;
}

/**
 * Checks an email and password and starts a session for the account on the device, or throws the
 * spec's code (§8). The session replaces whatever session the browser held (`previousToken`): no
 * token outlives a new login.
 *
 * The order closes account enumeration (ASVS V6.3.8, ARCHITECTURE.md): every path that stops
 * before the password matched costs the same argon2 work and answers the same for known and
 * unknown emails; whether an account is deactivated or unverified is told only to someone who
 * knows its password. The attempt is counted before any hashing (decision 0003: reserve, then
 * settle), so parallel guesses cannot get more than the threshold checked.
 */
export async function signInWithPassword(
  deps: Deps,
  input: SignInInput,
  meta: RequestMeta,
  device: { deviceId: string; previousToken: string | undefined },
): Promise<StartedSession> {
  const emailKey = normalizeEmail(input.email);
  const { passwords } = deps;
  const threshold = deps.config.lockoutThreshold;
  const uow = unitOfWork(deps);

  // Decision 0022: a domain whose organisation requires SSO has no password sign-in. Answered
  // from the domain alone, in the statement that would otherwise count the attempt, before any
  // password is checked, so known and unknown addresses there answer alike and no guess is ever
  // verified (nothing is counted).
  const attempt = await reserveUnlessSso(uow, emailKey, emailDomain(emailKey), threshold);
  if (attempt === 'ssoRequired') {
    await recordAudit(uow, { type: 'signin.failure', meta, userId: null, emailKey, detail: { reason: 'ssoRequired' } });
    throw new AppError('ssoRequired');
  }
  if (attempt.refused) {
    // Same work as a real attempt, so a lock cannot be told apart by timing either.
    await passwords.verifyDummy(input.hashPassword);
    const reason = attempt.locked ? 'locked' : 'overThreshold';
    await recordAudit(uow, { type: 'signin.locked', meta, userId: attempt.account?.id ?? null, emailKey, detail: { reason, failures: attempt.number } });
    throw new AppError('accountLocked');
  }

  // Read by the reservation's own statement (decision 0029).
  const user = attempt.account;
  const storedHash = user?.passwordHash ?? null;
  const matched = await checkingReserved(uow, attempt, () =>
    storedHash === null ? passwords.verifyDummy(input.hashPassword) : passwords.verify(storedHash, input.hashPassword),
  );

  if (!matched || user === undefined || storedHash === null) {
    const userId = user?.id ?? null;
    if ((await checkingReserved(uow, attempt, () => matchingPendingSignup(deps, emailKey, input.hashPassword, uow.now))) !== undefined) {
      await giveBack(uow, attempt);
      await recordAudit(uow, { type: 'signin.failure', meta, userId, emailKey, detail: { reason: 'pendingSignup' } });
      throw new AppError('unverifiedAccount');
    }
    const reason = user === undefined ? 'unknownEmail' : user.passwordHash === null ? 'noPassword' : 'wrongPassword';
    await recordAudit(uow, { type: 'signin.failure', meta, userId, emailKey, detail: { reason, failures: attempt.number } });
    if (await settleFailure(uow, attempt, threshold)) {
      await recordAudit(uow, { type: 'signin.locked', meta, userId, emailKey, detail: { reason: 'threshold', failures: attempt.number } });
      throw new AppError('accountLocked');
    }
    throw new AppError('invalidCredentials');
  }

  // From here on the caller knows the password, so the account's state may be told; the
  // reservation is given back, since a right password is no failure.
  if (user.deactivatedAt !== null) {
    await giveBack(uow, attempt);
    await recordAudit(uow, { type: 'signin.failure', meta, userId: user.id, emailKey, detail: { reason: 'deactivated' } });
    throw new AppError('deactivatedAccount');
  }
  if (user.emailVerifiedAt === null) {
    await giveBack(uow, attempt);
    await recordAudit(uow, { type: 'signin.failure', meta, userId: user.id, emailKey, detail: { reason: 'unverified' } });
    throw new AppError('unverifiedAccount');
  }

  // Parameters were raised since this hash was made: store it at today's cost (ASVS V11.4.2).
  // Hashed before any write, so no transaction is open while argon2 runs.
  // The hashing threads full (decision 0011): the sign-in goes on, and a later one upgrades the hash.
  const rehashed = passwords.needsRehash(storedHash) ? await passwords.hash(input.hashPassword).catch(unlessBusy) : undefined;
  // The success's writes together or not at all (decision 0029): the count cleared, the audit row,
  // the old session ended and the new one started; on PostgreSQL in one statement.
  const userId = user.id;
  const session = newSession(uow.now, deps.config, { userId, deviceId: device.deviceId });
  const success: SignInSuccess = {
    emailKey,
    audit: auditRow(uow.now, { type: 'signin.success', meta, userId, emailKey, detail: { method: 'password' } }),
    endedSessionId: sessionIdOf(device.previousToken),
    session: session.row,
    // The session starts only while the account still has the password just verified (and its
    // email, and no deactivation): a reset that committed during the verification ended every
    // session, and this one must not outlive it.
    checked: { passwordHash: rehashed ?? storedHash, emailKey },
  };
  try {
    if (rehashed === undefined) {
      await writeSignInSuccess(deps.db, success);
    } else {
      await deps.db.transaction().execute(async (trx) => {
        await rehashPassword(trx, userId, { from: storedHash, to: rehashed }, uow.now);
        await writeSignInSuccess(trx, success);
      });
    }
  } catch (error) {
    if (!(error instanceof CredentialsChanged)) throw error;
    // The password checked is no longer the account's: to the caller, a wrong password.
    await recordAudit(uow, { type: 'signin.failure', meta, userId, emailKey, detail: { reason: 'credentialsChanged', failures: attempt.number } });
    throw new AppError('invalidCredentials');
  }
  return session.started;
}
