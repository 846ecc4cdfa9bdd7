import type { Kysely, Selectable, Transaction } from 'kysely';
import type { DB, EmailTokensTable } from '../../db/schema.js';
import type { Clock } from '../../lib/clock.js';
import { randomToken, sha256Hex } from '../../lib/crypto.js';
import { AppError } from '../../lib/errors.js';

type Db = Kysely<DB> | Transaction<DB>;
export type EmailTokenRow = Selectable<EmailTokensTable>;

const HOUR_MS = 60 * 60 * 1000;

/**
 * Emailed tokens (decision 0009): 32 random bytes in base64url, stored only as SHA-256, single use,
 * with a purpose and an expiry. Sign-up verification lives 24 hours (NIST SP 800-63B: recovery
 * codes by email at most 24 h); an invitation 7 days, since an administrator's invitee may not
 * read mail the same day. Another capability adds its own purpose (a reset token) by calling
 * issueToken with its purpose and lifetime; setup accepts only the purposes below.
 */
export const SETUP_TOKENS = {
  verifyEmail: { purpose: 'verifyEmail', lifetimeMs: 24 * HOUR_MS },
  invitation: { purpose: 'invitation', lifetimeMs: 7 * 24 * HOUR_MS },
} as const;
export const SETUP_PURPOSES: readonly string[] = Object.values(SETUP_TOKENS).map((kind) => kind.purpose);

/**
 * Issues a token for an account and purpose, ending every earlier unused token of the same
 * purpose: only the newest link works (a resend or a re-invitation invalidates the old one).
 * A verification link of a sign-up (`signupId`, decision 0014) ends only the earlier links of
 * that same sign-up: each pending sign-up keeps its own live link, so a later sign-up by someone
 * else cannot take away the link the owner is about to click.
 */
export async function issueToken(
  deps: { db: Db; clock: Clock },
  input: { userId: string; purpose: string; lifetimeMs: number; signupId?: string },
): Promise<string> {
  const token = randomToken();
  const now = deps.clock.now();
  const signupId = input.signupId ?? null;
  let superseded = deps.db
    .updateTable('email_tokens')
    .set({ used_at: now })
    .where('user_id', '=', input.userId)
    .where('purpose', '=', input.purpose)
    .where('used_at', 'is', null);
  if (signupId !== null) superseded = superseded.where('signup_id', '=', signupId);
  await superseded.execute();
  await deps.db
    .insertInto('email_tokens')
    .values({
      id: sha256Hex(token),
      user_id: input.userId,
      purpose: input.purpose,
      created_at: now,
      expires_at: now + input.lifetimeMs,
      used_at: null,
      signup_id: signupId,
    })
    .execute();
  return token;
}

export async function findToken(db: Db, token: string): Promise<EmailTokenRow | undefined> {
  return db.selectFrom('email_tokens').selectAll().where('id', '=', sha256Hex(token)).executeTakeFirst();
}

/**
 * The token's row if it can still be used for one of `purposes`; otherwise the spec's code:
 * unknown, used, superseded or for another purpose → invalidToken; unused but past its expiry →
 * tokenExpired (spec §8 tells the two apart).
 */
export function usableToken(row: EmailTokenRow | undefined, purposes: readonly string[], now: number): EmailTokenRow {
  if (row === undefined || row.used_at !== null || !purposes.includes(row.purpose)) throw new AppError('invalidToken');
  if (row.expires_at <= now) throw new AppError('tokenExpired');
  return row;
}

/**
 * Spends a token in one conditional UPDATE: of two requests racing with the same token only one
 * sees a changed row (ASVS V15.4.2: check and use are one atomic step). False when it was spent
 * or expired meanwhile.
 */
export async function spendToken(db: Db, id: string, now: number): Promise<boolean> {
  const result = await db
    .updateTable('email_tokens')
    .set({ used_at: now })
    .where('id', '=', id)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Ends every open token of these purposes for an account (its setup is done). */
export async function spendOpenTokens(db: Db, userId: string, purposes: readonly string[], now: number): Promise<void> {
  await db
    .updateTable('email_tokens')
    .set({ used_at: now })
    .where('user_id', '=', userId)
    .where('purpose', 'in', [...purposes])
    .where('used_at', 'is', null)
    .execute();
}
