import type { Selectable } from 'kysely';
import { preparedStatement } from '../../db/prepared.js';
import type { Db, EmailTokensTable } from '../../db/schema.js';
import { takeTurns } from '../../db/take-turns.js';
import { randomToken, sha256Hex } from '../../lib/crypto.js';
import { AppError } from '../../lib/errors.js';
import type { UnitOfWork } from '../../lib/unit-of-work.js';
import { lockAccount } from '../users/users.repo.js';
import { lifetimeOf, type TokenPurpose } from './purposes.js';

export type TokenRow = Selectable<EmailTokensTable>;

/**
 * Why a token ended (migration 010, `ended_reason`): spent by its own screen's POST; replaced by a
 * newer link of its kind; ended because the account's setup or verification was finished another
 * way (another link, Google, company SSO); ended by a password reset. The screens of a
 * verification link tell a reused or superseded link from a dead one by it (decision 0020).
 */
export type TokenEndReason = 'used' | 'superseded' | 'completed' | 'passwordReset' | 'signedOut';

/** The reason a row records, or null for an open token and one that ended before reasons were kept. */
export function endReasonOf(row: TokenRow): TokenEndReason | null {
  const reason = row.ended_reason;
  return reason === 'used' || reason === 'superseded' || reason === 'completed' || reason === 'passwordReset' || reason === 'signedOut' ? reason : null;
}

/**
 * Issues a token for an account and purpose (decision 0009): 32 random bytes in base64url, stored
 * only as SHA-256, single use, expiring after its purpose's lifetime. Every earlier unused token
 * of the same purpose ends: only the newest link works (a resend or a re-invitation invalidates
 * the old one). A verification link of a sign-up (`signupId`, decision 0014) ends only the
 * earlier links of that same sign-up: each pending sign-up keeps its own live link, so a later
 * sign-up by someone else cannot take away the link the owner is about to click. An email-change
 * link carries the address it moves the account to (`newEmail`, decision 0023).
 */
export async function issueToken(
  uow: UnitOfWork,
  input: { userId: string; purpose: TokenPurpose; signupId?: string; newEmail?: string; bindingHash?: string | null },
): Promise<string> {
  const { token, row } = newToken(uow.now, input);
  await storeToken(uow.db, row);
  return token;
}

/** A fresh token and the row that stores it (only its SHA-256), for `storeToken` or a statement that writes it with its cause. */
export function newToken(
  now: number,
  input: { userId: string; purpose: TokenPurpose; signupId?: string; newEmail?: string; bindingHash?: string | null },
): { token: string; row: TokenRow } {
  const token = randomToken();
  const row: TokenRow = {
    id: sha256Hex(token),
    user_id: input.userId,
    purpose: input.purpose,
    created_at: now,
    expires_at: now + lifetimeOf(input.purpose),
    used_at: null,
    signup_id: input.signupId ?? null,
    new_email: input.newEmail ?? null,
    binding_hash: input.bindingHash ?? null,
    ended_reason: null,
  };
  return { token, row };
}

/**
 * Stores a token's row, ending the earlier unused ones it replaces (see `issueToken`), in one
 * transaction (the caller's, or its own). Issuers of one account's links of one purpose take
 * turns, so of parallel requests (a reset asked for five times at once, on one instance or many)
 * each ends the one before it and only the newest stays live.
 */
export async function storeToken(db: Db, row: TokenRow): Promise<void> {
  if (!db.isTransaction) {
    await db.transaction().execute((trx) => storeToken(trx, row));
    return;
  }
  // An emailed link is issued holding its account's turn (lockAccount); a transfer token is not
  // emailed, nothing ends it but its own use and its minutes, and it is on company sign-in's path.
  if (row.purpose !== 'transfer') await lockAccount(db, row.user_id);
  await takeTurns(db, `email_tokens:${row.user_id}:${row.purpose}`);
  await supersedeOpenTokens(db, { userId: row.user_id, purpose: row.purpose, signupId: row.signup_id, now: row.created_at });
  await insertTokenRow(db, row);
}

const TOKEN_COLUMNS = [
  'id',
  'user_id',
  'purpose',
  'created_at',
  'expires_at',
  'used_at',
  'signup_id',
  'new_email',
  'binding_hash',
  'ended_reason',
] as const satisfies ReadonlyArray<keyof TokenRow>;

// Decision 0029: every company sign-in and Google hand-off issues a token; compiled once.
const insertTokenRow = preparedStatement('foyer_token_insert', TOKEN_COLUMNS, (db: Db, row: TokenRow) => db.insertInto('email_tokens').values(row));

type Superseding = { userId: string; purpose: TokenRow['purpose']; now: number };

const supersedeOfPurpose = preparedStatement('foyer_tokens_supersede', ['userId', 'purpose', 'now'], (db: Db, input: Superseding) =>
  db
    .updateTable('email_tokens')
    .set({ used_at: input.now, ended_reason: 'superseded' satisfies TokenEndReason })
    .where('user_id', '=', input.userId)
    .where('purpose', '=', input.purpose)
    .where('used_at', 'is', null),
);

const supersedeOfSignup = preparedStatement(
  'foyer_tokens_supersede_signup',
  ['userId', 'purpose', 'now', 'signupId'],
  (db: Db, input: Superseding & { signupId: string }) =>
    db
      .updateTable('email_tokens')
      .set({ used_at: input.now, ended_reason: 'superseded' satisfies TokenEndReason })
      .where('user_id', '=', input.userId)
      .where('purpose', '=', input.purpose)
      .where('used_at', 'is', null)
      .where('signup_id', '=', input.signupId),
);

/** Ends the open links of one purpose of a user (of one sign-up, when given): a newer request replaces them. */
export async function supersedeOpenTokens(
  db: Db,
  input: { userId: string; purpose: TokenRow['purpose']; signupId?: string | null; now: number },
): Promise<void> {
  const { userId, purpose, signupId, now } = input;
  if (signupId !== undefined && signupId !== null) await supersedeOfSignup(db, { userId, purpose, now, signupId });
  else await supersedeOfPurpose(db, { userId, purpose, now });
}

export async function findToken(db: Db, token: string): Promise<TokenRow | undefined> {
  return db.selectFrom('email_tokens').selectAll().where('id', '=', sha256Hex(token)).executeTakeFirst();
}

/**
 * The token's row if it can still be used for one of `purposes`; otherwise the spec's code:
 * unknown, used, superseded or for another purpose → invalidToken; unused but past its expiry →
 * tokenExpired (spec §8 tells the two apart).
 */
export function usableToken(row: TokenRow | undefined, purposes: readonly TokenPurpose[], now: number): TokenRow {
  if (row === undefined || row.used_at !== null || !(purposes as readonly string[]).includes(row.purpose)) throw new AppError('invalidToken');
  if (row.expires_at <= now) throw new AppError('tokenExpired');
  return row;
}

/**
 * Spends a token in one conditional UPDATE: of two requests racing with the same token only one
 * sees a changed row (ASVS V15.4.2: check and use are one atomic step). False when it was spent
 * or expired meanwhile.
 */
export async function spendToken(uow: UnitOfWork, id: string): Promise<boolean> {
  const result = await uow.db
    .updateTable('email_tokens')
    .set({ used_at: uow.now, ended_reason: 'used' satisfies TokenEndReason })
    .where('id', '=', id)
    .where('used_at', 'is', null)
    .where('expires_at', '>', uow.now)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/**
 * Spends the token a screen presented, or throws the spec's code: a racing request spent it, or
 * it expired since it was read (spec §8 tells which).
 */
export async function spendPresentedToken(uow: UnitOfWork, token: string, row: TokenRow, purposes: readonly TokenPurpose[]): Promise<void> {
  // The account's turn first, before any link's row: what the link leads to (a new address, a
  // new password, a finished setup) ends the account's other links in the same transaction.
  await lockAccount(uow.db, row.user_id);
  if (await spendToken(uow, row.id)) return;
  usableToken(await findToken(uow.db, token), purposes, uow.now);
  throw new AppError('invalidToken');
}

/**
 * Ends every open token of these purposes for an account: its setup or verification is done
 * (`completed`, the default), or its password was reset (`passwordReset`).
 */
export async function spendOpenTokens(
  uow: UnitOfWork,
  userId: string,
  purposes: readonly TokenPurpose[],
  reason: Extract<TokenEndReason, 'completed' | 'passwordReset' | 'signedOut'> = 'completed',
): Promise<void> {
  await lockAccount(uow.db, userId);
  await uow.db
    .updateTable('email_tokens')
    .set({ used_at: uow.now, ended_reason: reason })
    .where('user_id', '=', userId)
    .where('purpose', 'in', [...purposes])
    .where('used_at', 'is', null)
    .execute();
}

/** Ends the unused tokens of these purposes of every account (an administrator ending every session). */
export async function spendEveryonesOpenTokens(
  uow: UnitOfWork,
  purposes: readonly TokenPurpose[],
  reason: Extract<TokenEndReason, 'signedOut'>,
): Promise<void> {
  await uow.db
    .updateTable('email_tokens')
    .set({ used_at: uow.now, ended_reason: reason })
    .where('purpose', 'in', [...purposes])
    .where('used_at', 'is', null)
    .execute();
}
