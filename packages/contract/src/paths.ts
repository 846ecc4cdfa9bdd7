/**
 * Spec §7: where each call lives. Plain data with no schema attached, so the browser bundle can
 * use it without zod (the schemas are in calls.ts). Paths the spec leaves out are chosen in
 * decision 0002. All paths are relative to `API_BASE`.
 */
export const API_BASE = '/api';

export interface CallPath {
  method: 'GET' | 'POST';
  path: string;
  /** Which later capability implements it; absent once it is live. */
  issue?: 'signup' | 'setup' | 'password' | 'google' | 'sso' | 'community';
}

export const CALL_PATHS = {
  signin: { method: 'POST', path: '/account/signin' },
  session: { method: 'GET', path: '/account/session' },
  signout: { method: 'POST', path: '/account/signout' },
  signup: { method: 'POST', path: '/account/signup' },
  resendVerification: { method: 'POST', path: '/account/resendVerification' },
  // Decision 0020: a fresh link from a superseded one, and from a sign-in refused as unverified.
  resendVerificationByLink: { method: 'POST', path: '/account/resendVerification/byLink' },
  resendVerificationBySignIn: { method: 'POST', path: '/account/resendVerification/bySignIn' },
  setupAccountFields: { method: 'GET', path: '/account/setupAccount/fields/:id' },
  setupAccount: { method: 'POST', path: '/account/setupAccount' },
  verifyEmail: { method: 'POST', path: '/account/verifyEmail' },
  verifyNewEmail: { method: 'POST', path: '/account/verifyNewEmail' },
  // Decision 0023: the address an email-change link moves to, before the page sends it; spends nothing.
  verifyNewEmailCheck: { method: 'POST', path: '/account/verifyNewEmail/check' },
  // Decision 0023: a signed-in person asks to move the account to a new email address.
  changeEmail: { method: 'POST', path: '/account/changeEmail' },
  forgotPassword: { method: 'POST', path: '/account/forgotPassword' },
  resetPassword: { method: 'POST', path: '/account/resetPassword' },
  // Decision 0020: whether a reset link still works, and whose it is; spends nothing.
  resetPasswordCheck: { method: 'GET', path: '/account/resetPassword/check/:token' },
  socialAuth: { method: 'POST', path: '/account/socialAuth' },
  googleExchange: { method: 'POST', path: '/account/socialAuth/exchange' },
  exchangeSSOTransferToken: { method: 'POST', path: '/account/exchangeSSOTransferToken' },
  // Decision 0021: whose account a transfer token signs in to, before a browser page exchanges it; spends nothing.
  exchangeSSOTransferTokenCheck: { method: 'POST', path: '/account/exchangeSSOTransferToken/check' },
  ssoStart: { method: 'POST', path: '/account/sso/start' },
  discourseSso: { method: 'POST', path: '/community/discourseSso' },
  termsAgreed: { method: 'POST', path: '/community/termsAgreed' },
  exchangeOtterToken: { method: 'POST', path: '/exchange/otterToken' },
  // Decision 0026: an uncaught error of the page, reported for the traces.
  clientErrors: { method: 'POST', path: '/client/errors' },
} as const satisfies Record<string, CallPath>;
export type CallName = keyof typeof CALL_PATHS;

export function callUrl(name: CallName, params: Record<string, string> = {}): string {
  const path = CALL_PATHS[name].path.replace(/:([A-Za-z]+)/g, (_, key: string) => encodeURIComponent(params[key] ?? ''));
  return `${API_BASE}${path}`;
}

/**
 * Spec §7: "a POST to a separate base path at ssoRedirectURL". Identity providers post SAML
 * responses and redirect OIDC codes here, outside the account API (decision 0002).
 */
export const SSO_BASE = '/sso';
export const SSO_PATHS = {
  samlAcs: '/sso/saml/:connectionId/acs',
  samlMetadata: '/sso/saml/:connectionId/metadata',
  oidcCallback: '/sso/oidc/:connectionId/callback',
} as const;

/** The health endpoint and the localisation files (spec §7: `static/lang/localizedStrings-{locale}.json`). */
export const HEALTH_PATH = '/healthz';
export const LANG_PATH = '/static/lang/localizedStrings-:locale.json';
export function langPath(locale: string): string {
  return `/static/lang/localizedStrings-${locale}.json`;
}
