import { isValidEmail, personNameOk, normalizeEmail } from '@foyer/contract';
import { isUniqueViolation } from '../../db/errors.js';
import { inTransaction } from '../../lib/unit-of-work.js';
import type { Deps } from '../../deps.js';
import { recordAudit, type RequestMeta } from '../audit/audit.service.js';
import { deleteAllSessions, deleteSessionsOfUser } from '../sessions/sessions.repo.js';
import { TRANSFER_PURPOSES } from '../tokens/purposes.js';
import { spendEveryonesOpenTokens, spendOpenTokens } from '../tokens/tokens.js';
import { findUserByEmailKey, insertUser, newUserRow, setUserDeactivated, type UserRow } from './users.repo.js';

export type CreateUserProblem = 'invalidEmail' | 'invalidFirstName' | 'invalidLastName' | 'emailTaken';

export class CreateUserError extends Error {
  override name = 'CreateUserError';
  constructor(readonly problem: CreateUserProblem) {
    super(problem);
  }
}

export interface CreateUserInput {
  email: string;
  /** SHA-256 hex of the password, as the browser would send it (spec §5). */
  hashPassword: string;
  firstName: string;
  lastName: string;
  verified: boolean;
}

export async function createUser(deps: Deps, input: CreateUserInput, meta: RequestMeta): Promise<UserRow> {
  const email = input.email.trim();
  if (!isValidEmail(email)) throw new CreateUserError('invalidEmail');
  // The rules every call applies to a name (contract PersonName), for the CLI's too.
  if (!personNameOk(input.firstName)) throw new CreateUserError('invalidFirstName');
  if (!personNameOk(input.lastName)) throw new CreateUserError('invalidLastName');
  const emailKey = normalizeEmail(email);
  if ((await findUserByEmailKey(deps.db, emailKey)) !== undefined) throw new CreateUserError('emailTaken');

  const passwordHash = await deps.passwords.hash(input.hashPassword);
  const now = deps.clock.now();
  const row = newUserRow({
    email,
    emailKey,
    firstName: input.firstName.trim(),
    lastName: input.lastName.trim(),
    passwordHash,
    verifiedAt: input.verified ? now : null,
    now,
  });
  try {
    await inTransaction(deps, async (uow) => {
      await insertUser(uow.db, row);
      await recordAudit(uow, { type: 'user.created', meta, userId: row.id, emailKey });
    });
  } catch (error) {
    // Two creations of one email at once: the unique index decides, the loser hears emailTaken.
    if (isUniqueViolation(error)) throw new CreateUserError('emailTaken');
    throw error;
  }
  return row;
}

/**
 * Deactivates an account and ends every session it has, in one transaction: a deactivated
 * person must lose access at once, not when a session expires (ASVS V7.4.2).
 */
export async function deactivateUser(deps: Deps, email: string, meta: RequestMeta): Promise<UserRow | undefined> {
  const emailKey = normalizeEmail(email);
  const user = await findUserByEmailKey(deps.db, emailKey);
  if (user === undefined) return undefined;
  const now = deps.clock.now();
  await inTransaction(deps, async (uow) => {
    await setUserDeactivated(uow.db, user.id, true, now);
    const ended = await deleteSessionsOfUser(uow.db, user.id);
    await recordAudit(uow, { type: 'user.deactivated', meta, userId: user.id, emailKey, detail: { sessionsEnded: ended } });
  });
  return { ...user, deactivated_at: now, updated_at: now };
}

/**
 * ASVS V7.4.5: an administrator ends every session, device token and unspent transfer token of one
 * account, which stays usable: whoever knows its password (or its SSO or Google identity) signs in
 * again. For a stolen device or a session the person cannot reach to sign out.
 */
export async function signOutEverywhere(deps: Deps, email: string, meta: RequestMeta): Promise<{ user: UserRow; sessionsEnded: number } | undefined> {
  const emailKey = normalizeEmail(email);
  const user = await findUserByEmailKey(deps.db, emailKey);
  if (user === undefined) return undefined;
  const sessionsEnded = await inTransaction(deps, async (uow) => {
    await spendOpenTokens(uow, user.id, TRANSFER_PURPOSES, 'signedOut');
    const ended = await deleteSessionsOfUser(uow.db, user.id);
    await recordAudit(uow, { type: 'user.signedOut', meta, userId: user.id, emailKey, detail: { sessionsEnded: ended } });
    return ended;
  });
  return { user, sessionsEnded };
}

/** ASVS V7.4.5 for all users at once: every session, device token and unspent transfer token ends (a leaked database or key). */
export async function endAllSessions(deps: Deps, meta: RequestMeta): Promise<number> {
  return inTransaction(deps, async (uow) => {
    await spendEveryonesOpenTokens(uow, TRANSFER_PURPOSES, 'signedOut');
    const ended = await deleteAllSessions(uow.db);
    await recordAudit(uow, { type: 'sessions.allEnded', meta, detail: { sessionsEnded: ended } });
    return ended;
  });
}

/**
 * Undoes a deactivation: the account signs in again as before, with nothing of it lost. Its
 * sessions ended with the deactivation and stay ended. Undefined for an unknown email, false when
 * the account was not deactivated.
 */
export async function reactivateUser(deps: Deps, email: string, meta: RequestMeta): Promise<{ user: UserRow; reactivated: boolean } | undefined> {
  const emailKey = normalizeEmail(email);
  const user = await findUserByEmailKey(deps.db, emailKey);
  if (user === undefined) return undefined;
  if (user.deactivated_at === null) return { user, reactivated: false };
  const now = deps.clock.now();
  await inTransaction(deps, async (uow) => {
    await setUserDeactivated(uow.db, user.id, false, now);
    await recordAudit(uow, { type: 'user.reactivated', meta, userId: user.id, emailKey });
  });
  return { user: { ...user, deactivated_at: null, updated_at: now }, reactivated: true };
}
