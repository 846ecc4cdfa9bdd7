import type { ErrorCode, SETUP_FIELDS } from '@foyer/contract';
import type { Deps } from '../../deps.js';
import { AppError, isAppError } from '../../lib/errors.js';
import { refuseCommonPassword } from '../../lib/password-floor.js';
import { inTransaction } from '../../lib/unit-of-work.js';
import { recordAudit, type RequestMeta } from '../audit/audit.service.js';
import { createSession, type StartedSession } from '../sessions/sessions.service.js';
import { findRedirectTo, mergeAttribution, type AttributionInput } from '../attribution/attribution.repo.js';
import { findUserById, type UserRow } from '../users/users.repo.js';
import { findOrganizationById } from '../organizations/organizations.repo.js';
import { ssoRequiredFor } from '../organizations/organizations.service.js';
import { dropPendingCredentials, findSignupAttempt } from '../signup/signup.repo.js';
import { activateSignup, completeUserSetup, type PendingCredential, type SetupValues } from './setup.repo.js';
import { SETUP_PURPOSES } from '../tokens/purposes.js';
import { endReasonOf, findToken, spendOpenTokens, spendPresentedToken, usableToken, type TokenRow } from '../tokens/tokens.js';

export type SetupField = (typeof SETUP_FIELDS)[number];

const blank = (value: string | null): boolean => value === null || value.trim() === '';

/** Spec §4: what the account still lacks. Phone is optional but listed when missing. */
export function missingFields(user: Pick<UserRow, 'first_name' | 'last_name' | 'password_hash' | 'phone_number'>): SetupField[] {
  const missing: SetupField[] = [];
  if (blank(user.first_name)) missing.push('firstName');
  if (blank(user.last_name)) missing.push('lastName');
  if (user.password_hash === null) missing.push('hashPassword');
  if (blank(user.phone_number)) missing.push('phoneNumber');
  return missing;
}

interface PendingSetup {
  token: TokenRow;
  user: UserRow;
  /** The sign-up whose credential this verification link activates (decision 0014). */
  signup?: PendingCredential;
  missing: SetupField[];
}

/** The sign-up a verification link belongs to, if it still holds its credential. */
async function pendingSignup(deps: Pick<Deps, 'db'>, token: TokenRow): Promise<PendingCredential | undefined> {
  if (token.signup_id === null) return undefined;
  const attempt = await findSignupAttempt(deps.db, token.signup_id);
  if (attempt === undefined || attempt.password_hash === null) {
    // Dropped because a sign-up of the email was verified, perhaps a moment ago by this very link
    // in another request: this link can activate nothing, and says why (decision 0020).
    throw new AppError(endedVerificationLink(token, await findUserById(deps.db, token.user_id)) ?? 'invalidToken');
  }
  return { ...attempt, password_hash: attempt.password_hash };
}

/**
 * Decision 0020: a verification link that cannot verify anything any more is told apart from a
 * dead one, so the screen can show the way on rather than spec §8's text for invitations (which
 * asks an administrator to re-send): the account is verified already (a second click, Back after
 * verifying, an older link of a finished sign-up) → alreadyVerified; a newer link of the same
 * sign-up replaced it → linkSuperseded. Only the link's holder learns this, and the link reached
 * the mailbox whose account it is. Invitations keep spec §8's codes; a deactivated account gets
 * nothing from an old link.
 */
function endedVerificationLink(row: TokenRow | undefined, user: UserRow | undefined): ErrorCode | undefined {
  if (row?.purpose !== 'verifyEmail' || user === undefined || user.deactivated_at !== null) return undefined;
  if (user.email_verified_at !== null) return 'alreadyVerified';
  if (row.used_at !== null && endReasonOf(row) === 'superseded') return 'linkSuperseded';
  return undefined;
}

/** The account behind a usable setup token, or the code that says why there is none (spec §8, decision 0020). */
async function pendingSetup(deps: Pick<Deps, 'db' | 'clock'>, token: string): Promise<PendingSetup> {
  const found = await findToken(deps.db, token);
  const user = found === undefined ? undefined : await findUserById(deps.db, found.user_id);
  const ended = endedVerificationLink(found, user);
  if (ended !== undefined) throw new AppError(ended);
  const row = usableToken(found, SETUP_PURPOSES, deps.clock.now());
  // A deactivated account gets nothing from an old link.
  if (user === undefined || user.deactivated_at !== null) throw new AppError('invalidToken');
  // Decision 0022: where an organisation requires SSO no password is set, so a link from before
  // the requirement is dead; spec §8's text asks the administrator to re-send, and the new
  // invitation links to SSO sign-in.
  if (await ssoRequiredFor(deps, user.email_key)) throw new AppError('invalidToken');
  const signup = await pendingSignup(deps, row);
  if (signup === undefined) return { token: row, user, missing: missingFields(user) };
  // What the account will hold once this sign-up is activated.
  const activated = {
    first_name: signup.first_name ?? user.first_name,
    last_name: signup.last_name ?? user.last_name,
    phone_number: signup.phone_number ?? user.phone_number,
    password_hash: signup.password_hash,
  };
  return { token: row, user, signup, missing: missingFields(activated) };
}

export interface SetupLookup {
  fields: SetupField[];
  email: string;
  organization?: string;
}

/**
 * Spec §7 `account/setupAccount/fields/{id}`. Only reads: opening an emailed link spends nothing
 * (mail scanners open links; ARCHITECTURE.md), only the POST of its screen does. Besides the
 * missing fields it names the account, and for an invitation the organisation (decision 0020):
 * the screen shows whose account is being set up and gives the email to password managers. The
 * link's holder learns nothing the mail did not tell them.
 */
export async function setupFields(deps: Pick<Deps, 'db' | 'clock'>, token: string): Promise<SetupLookup> {
  const { token: row, user, missing } = await pendingSetup(deps, token);
  const organization = row.purpose === 'invitation' && user.org_id !== null ? await findOrganizationById(deps.db, user.org_id) : undefined;
  const lookup: SetupLookup = { fields: missing, email: user.email };
  if (organization !== undefined) lookup.organization = organization.name;
  return lookup;
}

export interface SetupInput extends Omit<AttributionInput, 'signupSource' | 'redirectTo'> {
  token: string;
  deviceId: string;
  firstName?: string | undefined;
  lastName?: string | undefined;
  hashPassword?: string | undefined;
  phoneNumber?: string | undefined;
}

export interface CompletedSetup {
  session: StartedSession;
  redirectUrl?: string;
}

/**
 * Spec §7 `account/setupAccount` (mode 'setup') and `account/verifyEmail` (mode 'verify', no
 * fields: decision 0009). Stores only the fields the account lacks; the required ones among them
 * (names, password) must be given, anything else sent is ignored. Then, in one transaction:
 * spends the token (one conditional UPDATE, so of two racing requests one wins), marks the email
 * verified, ends the account's other setup links, and starts a session on this device.
 */
export async function completeSetup(deps: Deps, input: SetupInput, meta: RequestMeta, mode: 'setup' | 'verify'): Promise<CompletedSetup> {
  const { token, user, signup, missing } = await pendingSetup(deps, input.token);
  const required = missing.filter((field) => field !== 'phoneNumber');
  if (mode === 'verify' && required.length > 0) throw new AppError('accountNotSetUp');

  const values: SetupValues = {};
  const { firstName, lastName, hashPassword } = input;
  // The fields this account asks for that did not come, named as schema failures are (decision 0002).
  const absent = required.filter((field) => input[field] === undefined);
  if (absent.length > 0) throw new AppError('invalidRequest', { fields: absent });
  if (required.includes('firstName') && firstName !== undefined) values.firstName = firstName.trim();
  if (required.includes('lastName') && lastName !== undefined) values.lastName = lastName.trim();
  if (required.includes('hashPassword') && hashPassword !== undefined) {
    refuseCommonPassword(hashPassword);
    values.passwordHash = await deps.passwords.hash(hashPassword);
  }
  const phone = input.phoneNumber?.trim() ?? '';
  if (missing.includes('phoneNumber') && phone !== '') values.phoneNumber = phone;

  try {
    return await finishSetup(deps, { input, token, user, signup, values, mode }, meta);
  } catch (error) {
    // A racing request with the same link won (a double click, Back and submit again): say what
    // the link is now (alreadyVerified, most likely) rather than only that it is spent.
    if (isAppError(error) && error.code === 'invalidToken') await pendingSetup(deps, input.token);
    throw error;
  }
}

interface ReadySetup extends Pick<PendingSetup, 'token' | 'user' | 'signup'> {
  input: SetupInput;
  values: SetupValues;
  mode: 'setup' | 'verify';
}

/** completeSetup's transaction, once the input is checked and the password hashed. */
async function finishSetup(deps: Deps, ready: ReadySetup, meta: RequestMeta): Promise<CompletedSetup> {
  const { input, token, user, signup, values, mode } = ready;
  return inTransaction(deps, async (uow) => {
    const { db: trx, now } = uow;
    await spendPresentedToken(uow, input.token, token, SETUP_PURPOSES);
    // Decision 0014: the clicked sign-up's credential wins; verified meanwhile → nothing changes.
    if (signup !== undefined && !(await activateSignup(trx, user.id, signup, now))) throw new AppError('invalidToken');
    await completeUserSetup(trx, user.id, values, now);
    await spendOpenTokens(uow, user.id, SETUP_PURPOSES);
    // The email is proven now: no other sign-up's password may linger as a candidate.
    await dropPendingCredentials(trx, user.email_key);
    await mergeAttribution(trx, user.id, input, now);
    const session = await createSession(uow, deps.config, { userId: user.id, deviceId: input.deviceId });

    if (user.email_verified_at === null) {
      const via = signup === undefined ? token.purpose : 'signup';
      await recordAudit(uow, { type: 'email.verified', meta, userId: user.id, emailKey: user.email_key, detail: { via } });
    }
    const fieldsSet = Object.keys(values).join(',');
    await recordAudit(uow, { type: 'setup.completed', meta, userId: user.id, emailKey: user.email_key, detail: { via: token.purpose, mode, fieldsSet } });

    // Stored only after passing the redirect policy at sign-up; the browser checks it once more
    // right before it navigates (features/redirects).
    const redirectUrl = await findRedirectTo(trx, user.id);
    return redirectUrl === null ? { session } : { session, redirectUrl };
  });
}
