import { z } from 'zod';
import { ERROR_CODES } from './errors.js';
import { PLAN_INTENTS } from './flags.js';
import { DeviceId, Email, HashPassword, PersonName, PhoneNumber, SignInEmail, Token } from './validation.js';

/**
 * Spec §7: every call of the account service, with its method, path, body and answer.
 * Paths the spec leaves out are chosen in decision 0002. All paths are under `API_BASE`.
 */
export const API_BASE = '/api';

const optionalText = z.string().trim().max(500).optional();

/** Spec §3: marketing attribution, named as the calls send it. */
export const Attribution = z.object({
  gaId: optionalText,
  utmMedium: optionalText,
  utmCampaign: optionalText,
  utmSource: optionalText,
  utmTerm: optionalText,
  gclid: optionalText,
});
export type Attribution = z.infer<typeof Attribution>;

export const InitialIntent = z.enum(PLAN_INTENTS);
/** Where the server may send the browser next: already checked against the allow-list. */
export const RedirectUrl = z.string().max(2048);
const Empty = z.object({});

// account/signin
export const SignInBody = z.object({ email: SignInEmail, hashPassword: HashPassword, deviceId: DeviceId });
export const SignInResponse = z.object({ otter: z.string() });

// account/session (GET) and account/signout: the signed-in account for the rest of the product
export const SessionUser = z.object({
  id: z.string(),
  email: z.string(),
  firstName: z.string().nullable(),
  lastName: z.string().nullable(),
  emailVerified: z.boolean(),
});
export type SessionUser = z.infer<typeof SessionUser>;
export const SessionResponse = z.object({ user: SessionUser, expiresAt: z.string() });
export const SignOutResponse = Empty;

// account/signup
export const SignUpBody = Attribution.extend({
  deviceId: DeviceId,
  email: Email,
  hashPassword: HashPassword,
  firstName: PersonName,
  lastName: PersonName,
  signupSource: z.string().trim().max(100).optional(),
  phoneNumber: PhoneNumber.optional(),
  initialIntent: InitialIntent.optional(),
  reCaptchaToken: z.string().max(4096).optional(),
  redirectTo: z.string().max(2048).optional(),
  hubspotToken: optionalText,
});
export const SignUpResponse = z.object({ userId: z.string(), redirectUrl: RedirectUrl.optional() });

// account/resendVerification
export const ResendVerificationBody = z.object({ email: Email, userId: z.string().max(100) });
export const ResendVerificationResponse = Empty;

// account/setupAccount/fields/{id} (GET): id is the emailed token
export const SETUP_FIELDS = ['firstName', 'lastName', 'hashPassword', 'phoneNumber'] as const;
export const SetupFieldsParams = z.object({ id: Token });
export const SetupFieldsResponse = z.object({ fields: z.array(z.enum(SETUP_FIELDS)) });

// account/setupAccount
export const SetupAccountBody = Attribution.extend({
  token: Token,
  deviceId: DeviceId,
  firstName: PersonName.optional(),
  lastName: PersonName.optional(),
  hashPassword: HashPassword.optional(),
  phoneNumber: PhoneNumber.optional(),
  initialIntent: InitialIntent.optional(),
  hubspotToken: optionalText,
  isMarketingTest: z.boolean().optional(),
});
export const SetupAccountResponse = z.object({ otter: z.string(), redirectUrl: RedirectUrl.optional() });

// account/verifyEmail (body not shown in the spec: decision 0002)
export const VerifyEmailBody = z.object({ token: Token, deviceId: DeviceId });
export const VerifyEmailResponse = z.object({ otter: z.string(), redirectUrl: RedirectUrl.optional() });

// verify new email
export const VerifyNewEmailBody = z.object({ token: Token, deviceId: DeviceId });
export const VerifyNewEmailResponse = z.object({ otter: z.string() });

// account/forgotPassword
export const ForgotPasswordBody = z.object({ email: Email, reCaptchaToken: z.string().max(4096).optional() });
export const ForgotPasswordResponse = Empty;

// account/resetPassword
export const ResetPasswordBody = z.object({ token: Token, hashPassword: HashPassword });
export const ResetPasswordResponse = Empty;

// account/socialAuth: starts Google sign-in; the server keeps the PKCE verifier for the state
export const SocialAuthBody = z.object({ state: z.string().min(16).max(200) });
export const SocialAuthResponse = z.object({ url: z.string() });

// Google code exchange
export const GoogleExchangeBody = Attribution.extend({
  authorizationCode: z.string().min(1).max(4096),
  state: z.string().min(16).max(200),
  deviceId: DeviceId,
  initialIntent: InitialIntent.optional(),
  hubspotToken: optionalText,
  signupSource: z.string().trim().max(100).optional(),
  isMarketingTest: z.boolean().optional(),
  useTransferToken: z.boolean().optional(),
  lastTouchUrl: z.string().max(2048).optional(),
  clientAuthenticationPeriodId: z.string().max(100).optional(),
  marketingTestData: z.string().max(2048).optional(),
});
export const GoogleExchangeResponse = z.object({
  wasSignUp: z.boolean(),
  otter: z.string(),
  transferToken: z.string().optional(),
  wasClient: z.boolean(),
});

// account/exchangeSSOTransferToken
export const ExchangeSsoTransferTokenBody = z.object({ token: Token, deviceId: DeviceId });
export const ExchangeSsoTransferTokenResponse = z.object({ otter: z.string() });

// SSO start
export const SsoStartBody = z.object({
  email: SignInEmail,
  clientAuthenticationPeriodId: z.string().max(100).optional(),
  state: z.string().max(2048).optional(),
});
export const SsoStartResponse = z.object({ url: z.string() });

// community/discourseSso and community/termsAgreed (headers X-DeviceId and Authorization)
export const DiscourseSsoBody = z.object({ ssoPayload: z.string().min(1).max(4096), signature: z.string().regex(/^[0-9a-f]{64}$/) });
export const DiscourseSsoResponse = z.object({ termsAgreed: z.boolean(), redirectUrl: RedirectUrl });
export const TermsAgreedBody = Empty;
export const TermsAgreedResponse = Empty;

// exchange/otterToken
export const ExchangeOtterTokenBody = z.object({
  otterToken: Token,
  deviceId: DeviceId,
  clientAuthenticationPeriodId: z.string().max(100).optional(),
});
export const ExchangeOtterTokenResponse = z.object({ deviceToken: z.string() });

export const HealthResponse = z.object({ status: z.enum(['ok', 'degraded']), database: z.enum(['ok', 'down']) });

export interface CallDefinition {
  method: 'GET' | 'POST';
  path: string;
  body?: z.ZodType;
  params?: z.ZodType;
  response: z.ZodType;
  /** Which later capability implements it; absent once it is live. */
  issue?: 'signup' | 'setup' | 'password' | 'google' | 'sso' | 'community';
}

/** Every call, keyed by the name the spec gives it. Paths are relative to `API_BASE`. */
export const CALLS = {
  signin: { method: 'POST', path: '/account/signin', body: SignInBody, response: SignInResponse },
  session: { method: 'GET', path: '/account/session', response: SessionResponse },
  signout: { method: 'POST', path: '/account/signout', body: Empty, response: SignOutResponse },
  signup: { method: 'POST', path: '/account/signup', body: SignUpBody, response: SignUpResponse, issue: 'signup' },
  resendVerification: { method: 'POST', path: '/account/resendVerification', body: ResendVerificationBody, response: ResendVerificationResponse, issue: 'signup' },
  setupAccountFields: { method: 'GET', path: '/account/setupAccount/fields/:id', params: SetupFieldsParams, response: SetupFieldsResponse, issue: 'setup' },
  setupAccount: { method: 'POST', path: '/account/setupAccount', body: SetupAccountBody, response: SetupAccountResponse, issue: 'setup' },
  verifyEmail: { method: 'POST', path: '/account/verifyEmail', body: VerifyEmailBody, response: VerifyEmailResponse, issue: 'setup' },
  verifyNewEmail: { method: 'POST', path: '/account/verifyNewEmail', body: VerifyNewEmailBody, response: VerifyNewEmailResponse, issue: 'setup' },
  forgotPassword: { method: 'POST', path: '/account/forgotPassword', body: ForgotPasswordBody, response: ForgotPasswordResponse, issue: 'password' },
  resetPassword: { method: 'POST', path: '/account/resetPassword', body: ResetPasswordBody, response: ResetPasswordResponse, issue: 'password' },
  socialAuth: { method: 'POST', path: '/account/socialAuth', body: SocialAuthBody, response: SocialAuthResponse, issue: 'google' },
  googleExchange: { method: 'POST', path: '/account/socialAuth/exchange', body: GoogleExchangeBody, response: GoogleExchangeResponse, issue: 'google' },
  exchangeSSOTransferToken: { method: 'POST', path: '/account/exchangeSSOTransferToken', body: ExchangeSsoTransferTokenBody, response: ExchangeSsoTransferTokenResponse, issue: 'sso' },
  ssoStart: { method: 'POST', path: '/account/sso/start', body: SsoStartBody, response: SsoStartResponse, issue: 'sso' },
  discourseSso: { method: 'POST', path: '/community/discourseSso', body: DiscourseSsoBody, response: DiscourseSsoResponse, issue: 'community' },
  termsAgreed: { method: 'POST', path: '/community/termsAgreed', body: TermsAgreedBody, response: TermsAgreedResponse, issue: 'community' },
  exchangeOtterToken: { method: 'POST', path: '/exchange/otterToken', body: ExchangeOtterTokenBody, response: ExchangeOtterTokenResponse, issue: 'community' },
} as const satisfies Record<string, CallDefinition>;
export type CallName = keyof typeof CALLS;

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

export function callUrl(name: CallName, params: Record<string, string> = {}): string {
  const path = CALLS[name].path.replace(/:([A-Za-z]+)/g, (_, key: string) => encodeURIComponent(params[key] ?? ''));
  return `${API_BASE}${path}`;
}

export const ErrorCodeSchema = z.enum(ERROR_CODES);
