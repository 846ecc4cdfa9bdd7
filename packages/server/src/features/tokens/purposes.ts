const MINUTE_MS = 60 * 1000;
const HOUR_MS = 60 * MINUTE_MS;

/**
 * Every kind of single-use token the service hands out, with its lifetime (decisions 0009, 0010).
 * A capability that needs one adds its purpose here; the screens that accept tokens each name the
 * purposes they take, so a token of one kind never opens another's screen.
 *
 * - verifyEmail: 24 hours (NIST SP 800-63B: codes sent by email live at most 24 h).
 * - invitation: 7 days; an administrator's invitee may not read mail the same day, and only the
 *   invited address receives it.
 * - passwordReset: 1 hour.
 * - transfer: 2 minutes (decision 0019); a native app's one-time sign-in token, handed over at
 *   once by the page that received it, so a token that leaks later is already dead.
 * - emailChange: 24 hours, like verifyEmail (decision 0023); the link goes to the new address.
 */
export const TOKEN_PURPOSES = {
  verifyEmail: { lifetimeMs: 24 * HOUR_MS },
  invitation: { lifetimeMs: 7 * 24 * HOUR_MS },
  passwordReset: { lifetimeMs: HOUR_MS },
  transfer: { lifetimeMs: 2 * MINUTE_MS },
  emailChange: { lifetimeMs: 24 * HOUR_MS },
} as const satisfies Record<string, { lifetimeMs: number }>;

export type TokenPurpose = keyof typeof TOKEN_PURPOSES;

export function lifetimeOf(purpose: TokenPurpose): number {
  return TOKEN_PURPOSES[purpose].lifetimeMs;
}

/** The links that open the account-setup screens (`/verify-email/:token`, `/setup-account/:token`). */
export const SETUP_PURPOSES: readonly TokenPurpose[] = ['verifyEmail', 'invitation'];

/** The link of the reset-password screen. */
export const RESET_PURPOSES: readonly TokenPurpose[] = ['passwordReset'];

/** The one-time sign-in token of `account/exchangeSSOTransferToken` (Google now, SSO later). */
export const TRANSFER_PURPOSES: readonly TokenPurpose[] = ['transfer'];

/** The link of the verify-new-email screen (`/verify-new-email/:token`, decision 0023). */
export const EMAIL_CHANGE_PURPOSES: readonly TokenPurpose[] = ['emailChange'];
