import { isUniqueViolation } from '../../db/errors.js';
import type { Deps } from '../../deps.js';
import { randomToken, sha256Hex } from '../../lib/crypto.js';
import { AppError } from '../../lib/errors.js';
import { expirySweep } from '../../lib/expiry-sweep.js';
import { unitOfWork } from '../../lib/unit-of-work.js';
import { recordAudit, withClientPeriod, type RequestMeta } from '../audit/audit.service.js';
import { createSession, endSession, type StartedSession } from '../sessions/sessions.service.js';
import { issueToken } from '../tokens/tokens.js';
import { resolveGoogleAccount, signInReturningAccount, type GoogleAttribution } from './google.accounts.js';
import type { GoogleClient } from './google.client.js';
import { deleteExpiredSocialAuthStates, insertSocialAuthState, spendSocialAuthState } from './google.repo.js';

/** A person has this long to pass the consent page; then the state answers invalidState. */
export const SOCIAL_AUTH_STATE_LIFETIME_MS = 10 * 60 * 1000;

/** Spending a state compares its expiry (google.repo.ts): an expired row left a minute longer is never used. */
const forgetExpiredStates = expirySweep(deleteExpiredSocialAuthStates);

/**
 * Spec §7 `account/socialAuth` `{ state }` → `{ url }`. The browser chose `state` and keeps it
 * (spec §4 compares it on return); the server keeps, under its SHA-256, the PKCE verifier and
 * the nonce, which never reach the browser, so a code taken from the return address cannot be
 * exchanged without them (RFC 7636) and an ID token from another request fails its nonce.
 */
export async function startSocialAuth(deps: Deps, google: GoogleClient, state: string): Promise<string> {
  const codeVerifier = randomToken();
  const nonce = randomToken();
  // Discovery first: when the provider is down nothing is stored and the page hears 503.
  const url = await google.authorizationUrl({ state, nonce, codeVerifier });
  await forgetExpiredStates(deps);
  const { db, now } = unitOfWork(deps);
  await insertSocialAuthState(db, {
    id: sha256Hex(state),
    code_verifier: codeVerifier,
    nonce,
    created_at: now,
    expires_at: now + SOCIAL_AUTH_STATE_LIFETIME_MS,
    used_at: null,
  }).catch((error: unknown) => {
    // A state sent twice is refused: a state names one authorization request only.
    throw isUniqueViolation(error) ? new AppError('invalidState', { cause: error }) : error;
  });
  return url;
}

export interface GoogleExchangeInput extends GoogleAttribution {
  authorizationCode: string;
  state: string;
  deviceId: string;
  useTransferToken?: boolean | undefined;
  clientAuthenticationPeriodId?: string | undefined;
}

export type GoogleExchangeResult =
  | { kind: 'session'; userId: string; wasSignUp: boolean; started: StartedSession }
  | { kind: 'transfer'; userId: string; wasSignUp: boolean; transferToken: string };

/**
 * Spec §7, the Google code exchange. The state is spent first (single use, 10 minutes), then the
 * code is exchanged and the ID token validated, then the account is found or made. A browser gets
 * a new session, which replaces the one it presented (`previousToken`: no token outlives a new
 * login); a client that asked for a transfer token (native app, browser extension: spec §3) gets
 * a one-time token to hand to the app instead. Either is written with the account's own writes:
 * a returning account's browser sign-in, the common case, by `signInReturningAccount` (one
 * statement on PostgreSQL), everything else in `resolveGoogleAccount`'s transaction.
 */
export async function exchangeGoogle(
  deps: Deps,
  google: GoogleClient,
  input: GoogleExchangeInput,
  meta: RequestMeta,
  previousToken: string | undefined,
): Promise<GoogleExchangeResult> {
  const { db, now } = unitOfWork(deps);
  const waiting = await spendSocialAuthState(db, sha256Hex(input.state), now);
  if (waiting === undefined) throw new AppError('invalidState');
  const identity = google.withEmail(
    await google.exchange({ code: input.authorizationCode, state: input.state, codeVerifier: waiting.code_verifier, nonce: waiting.nonce }),
  );
  if (input.useTransferToken !== true) {
    const returning = await signInReturningAccount(deps, identity, meta, { deviceId: input.deviceId, previousToken });
    if (returning !== undefined) return { kind: 'session', userId: returning.user.id, wasSignUp: false, started: returning.started };
  }
  const attribution: GoogleAttribution = {
    signupSource: input.signupSource,
    initialIntent: input.initialIntent,
    utmMedium: input.utmMedium,
    utmCampaign: input.utmCampaign,
    utmSource: input.utmSource,
    utmTerm: input.utmTerm,
    gclid: input.gclid,
    gaId: input.gaId,
    hubspotToken: input.hubspotToken,
    isMarketingTest: input.isMarketingTest,
    lastTouchUrl: input.lastTouchUrl,
    marketingTestData: input.marketingTestData,
  };
  const { user, wasSignUp, completed } = await resolveGoogleAccount(deps, identity, attribution, meta, async (uow, { user }) => {
    if (input.useTransferToken === true) {
      const transferToken = await issueToken(uow, { userId: user.id, purpose: 'transfer' });
      const detail = withClientPeriod({ via: 'google' }, input.clientAuthenticationPeriodId);
      await recordAudit(uow, { type: 'transfer.issued', meta, userId: user.id, emailKey: user.email_key, detail });
      return { kind: 'transfer' as const, transferToken };
    }
    await endSession(uow, previousToken);
    return { kind: 'session' as const, started: await createSession(uow, deps.config, { userId: user.id, deviceId: input.deviceId }) };
  });
  return { ...completed, userId: user.id, wasSignUp };
}
