import { isValidEmail, nameOk, normalizeEmail, type SessionUser } from '@foyer/contract';
import { isUniqueViolation } from '../../db/errors.js';
import type { Deps } from '../../deps.js';
import { recordAudit, type RequestMeta } from '../audit/audit.service.js';
import { deleteSessionsOfUser } from '../sessions/sessions.repo.js';
import { findUserByEmailKey, insertUser, newUserRow, setUserDeactivated, type UserRow } from './users.repo.js';

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

export type CreateUserProblem = 'invalidEmail' | 'blankFirstName' | 'blankLastName' | 'emailTaken';

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
  if (!nameOk(input.firstName)) throw new CreateUserError('blankFirstName');
  if (!nameOk(input.lastName)) throw new CreateUserError('blankLastName');
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
    await deps.db.transaction().execute(async (trx) => {
      await insertUser(trx, row);
      await recordAudit({ db: trx, clock: deps.clock }, { type: 'user.created', meta, userId: row.id, emailKey });
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
  await deps.db.transaction().execute(async (trx) => {
    await setUserDeactivated(trx, user.id, now);
    const ended = await deleteSessionsOfUser(trx, user.id);
    await recordAudit({ db: trx, clock: deps.clock }, { type: 'user.deactivated', meta, userId: user.id, emailKey, detail: { sessionsEnded: ended } });
  });
  return { ...user, deactivated_at: now, updated_at: now };
}
