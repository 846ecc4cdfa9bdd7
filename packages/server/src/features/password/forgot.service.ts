import { normalizeEmail, routePath, type Locale } from '@foyer/contract';
import { sql } from 'kysely';
import { takeTurns } from '../../db/take-turns.js';
import type { Deps } from '../../deps.js';
import { randomToken, sha256Hex } from '../../lib/crypto.js';
import { AppError } from '../../lib/errors.js';
import { inTransaction, type UnitOfWork } from '../../lib/unit-of-work.js';
import { recordAudit, type RequestMeta } from '../audit/audit.service.js';
import { absoluteLink, queueMail } from '../mail/mail.service.js';
import { mailLocale } from '../mail/mail.template.js';
import { ssoRequiredFor } from '../organizations/organizations.service.js';
import { lifetimeOf } from '../tokens/purposes.js';
import { issueToken } from '../tokens/tokens.js';
import { findUserByEmailKey, lockAccount, type UserRow } from '../users/users.repo.js';
import { passwordResetMail } from './password.mail.js';

const MINUTE_MS = 60_000;
/** Decision 0010: a reset link lives one hour and works once; a newer request ends older links. */
const RESET_MINUTES = lifetimeOf('passwordReset') / MINUTE_MS;

export interface ForgotContext {
  meta: RequestMeta;
  /** The language of the request (Accept-Language): used when the account has none stored. */
  locale: Locale;
}

/** The recipient's language: the account's own, else the one the request was made in. */
export function recipientLocale(user: Pick<UserRow, 'locale'>, requestLocale: Locale): Locale {
  return user.locale === null ? requestLocale : mailLocale(user.locale);
}

function resetLink(deps: Pick<Deps, 'config'>, token: string): string {
  return absoluteLink(deps.config, routePath('resetPassword', { token }));
}

async function queueResetMail(uow: UnitOfWork, deps: Deps, user: UserRow, locale: Locale): Promise<void> {
  const token = await issueToken(uow, { userId: user.id, purpose: 'passwordReset' });
  await queueMail(uow, deps.config, {
    to: user.email,
    locale,
    template: passwordResetMail,
    data: { firstName: user.first_name, link: resetLink(deps, token), minutes: RESET_MINUTES },
  });
}

/**
 * What the no-mail path does instead of queueResetMail, so both cost about the same (measured in
 * password.timing.test.ts; ASVS V6.3.8): the same token generation and hashing, the issuers' turn
 * (on a key of its own), an UPDATE of
 * email_tokens like issueToken's (matching no row here), and the same queueMail, whose outbox row
 * is rolled back under a savepoint at once. The database does the known path's largest write and keeps
 * nothing: no row is committed, so nothing is ever sent.
 */
async function equalWork(uow: UnitOfWork, deps: Deps, email: string, locale: Locale): Promise<void> {
  const token = randomToken();
  const { db } = uow;
  // issueToken's turn, on a key no issuer uses.
  await takeTurns(db, `email_tokens:${sha256Hex(token)}:passwordReset`);
  await db
    .updateTable('email_tokens')
    .set({ used_at: uow.now, ended_reason: 'superseded' })
    .where('id', '=', sha256Hex(token))
    .where('purpose', '=', 'passwordReset')
    .where('used_at', 'is', null)
    .execute();
  await sql`savepoint foyer_equal_work`.execute(db);
  await queueMail(uow, deps.config, {
    to: email,
    locale,
    template: passwordResetMail,
    data: { firstName: null, link: resetLink(deps, token), minutes: RESET_MINUTES },
  });
  await sql`rollback to savepoint foyer_equal_work`.execute(db);
  await sql`release savepoint foyer_equal_work`.execute(db);
}

/**
 * Spec §7 account/forgotPassword, §8. An active account (not deactivated) gets a reset link by
 * mail, in its language; an unknown or deactivated email gets nothing. The answer is the same
 * empty 200 in every case, after the same lookups and about the same work (both run one
 * transaction with an audit row), so neither the answer nor its timing tells which emails have
 * accounts (ASVS V6.3.8). ssoRequired (409) depends only on the email's domain: an organisation
 * that requires SSO resets passwords through its SSO dashboard (spec §8).
 */
export async function requestPasswordReset(deps: Deps, input: { email: string }, context: ForgotContext): Promise<void> {
  const emailKey = normalizeEmail(input.email);
  if (await ssoRequiredFor(deps, emailKey)) throw new AppError('ssoRequired');
  const found = await findUserByEmailKey(deps.db, emailKey);

  await inTransaction(deps, async (uow) => {
    // Read again holding the account's turn: an address the account left meanwhile (its change
    // confirmed, which ended the links mailed here) is no longer its address, and gets nothing.
    // An unknown email reads no row the same way, so both paths still do the same work.
    const current = await lockAccount(uow.db, found?.id ?? '');
    const user = current?.email_key === emailKey ? current : undefined;
    const active = user !== undefined && user.deactivated_at === null ? user : undefined;
    const reason = user === undefined ? 'unknownEmail' : active === undefined ? 'deactivated' : undefined;
    const locale = user === undefined ? context.locale : recipientLocale(user, context.locale);
    if (active !== undefined) await queueResetMail(uow, deps, active, locale);
    else await equalWork(uow, deps, input.email.trim(), locale);
    const detail: Record<string, string | boolean> = reason === undefined ? { sent: true } : { sent: false, reason };
    await recordAudit(uow, { type: 'password.resetRequested', meta: context.meta, userId: user?.id ?? null, emailKey, detail });
  });
}
