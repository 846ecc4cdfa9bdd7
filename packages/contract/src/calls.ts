import { z } from 'zod';
import { ERROR_CODES } from './errors.js';
import { CALL_PATHS, type CallPath } from './paths.js';
import { PLAN_INTENTS } from './flags.js';
import { DeviceId, Email, HashPassword, PersonName, PhoneNumber, SignInEmail, Token, text } from './fields.js';

/**
 * Spec §7: the body and answer of every call; where each lives is in paths.ts. Every request
 * string is a `text()` (fields.ts), so none admits control characters; answers are ours and
 * stay plain strings.
 */

const optionalText = text().trim().max(500).optional();

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
  signupSource: text().trim().max(100).optional(),
  phoneNumber: PhoneNumber.optional(),
  initialIntent: InitialIntent.optional(),
  reCaptchaToken: text().max(4096).optional(),
  redirectTo: text().max(2048).optional(),
  hubspotToken: optionalText,
});
export const SignUpResponse = z.object({ userId: z.string(), redirectUrl: RedirectUrl.optional() });

// account/resendVerification
export const ResendVerificationBody = z.object({ email: Email, userId: text().max(100) });
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
export const ForgotPasswordBody = z.object({ email: Email, reCaptchaToken: text().max(4096).optional() });
export const ForgotPasswordResponse = Empty;

// account/resetPassword
export const ResetPasswordBody = z.object({ token: Token, hashPassword: HashPassword });
export const ResetPasswordResponse = Empty;

// account/socialAuth: starts Google sign-in; the server keeps the PKCE verifier for the state
export const SocialAuthBody = z.object({ state: text().min(16).max(200) });
export const SocialAuthResponse = z.object({ url: z.string() });

// Google code exchange
export const GoogleExchangeBody = Attribution.extend({
  authorizationCode: text().min(1).max(4096),
  state: text().min(16).max(200),
  deviceId: DeviceId,
  initialIntent: InitialIntent.optional(),
  hubspotToken: optionalText,
  signupSource: text().trim().max(100).optional(),
  isMarketingTest: z.boolean().optional(),
  useTransferToken: z.boolean().optional(),
  lastTouchUrl: text().max(2048).optional(),
  clientAuthenticationPeriodId: text().max(100).optional(),
  marketingTestData: text().max(2048).optional(),
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
  clientAuthenticationPeriodId: text().max(100).optional(),
  state: text().max(2048).optional(),
});
export const SsoStartResponse = z.object({ url: z.string() });

// community/discourseSso and community/termsAgreed (headers X-DeviceId and Authorization)
export const DiscourseSsoBody = z.object({ ssoPayload: text().min(1).max(4096), signature: text().regex(/^[0-9a-f]{64}$/) });
export const DiscourseSsoResponse = z.object({ termsAgreed: z.boolean(), redirectUrl: RedirectUrl });
export const TermsAgreedBody = Empty;
export const TermsAgreedResponse = Empty;

// exchange/otterToken
export const ExchangeOtterTokenBody = z.object({
  otterToken: Token,
  deviceId: DeviceId,
  clientAuthenticationPeriodId: text().max(100).optional(),
});
export const ExchangeOtterTokenResponse = z.object({ deviceToken: z.string() });

/**
 * GET /healthz, for load balancers and monitors. 503 only when the database is down (this
 * instance cannot serve); `degraded` with 200 when mail is late or Redis does not answer, since
 * every instance shares those and taking all out of rotation would not help. The fields beyond
 * `status` and `database` are optional, so a monitor written for the first two keeps working.
 */
export const HealthResponse = z.object({
  status: z.enum(['ok', 'degraded']),
  database: z.enum(['ok', 'down']),
  /** Unsent mail that is due now, and how long ago the oldest of it was queued; absent when the database is down. */
  mail: z.object({ due: z.number().int().nonnegative(), oldestDueAgeMs: z.number().int().nonnegative().nullable() }).optional(),
  /** Only with REDIS_URL: while it is down, rate limits are off. */
  redis: z.enum(['ok', 'down']).optional(),
});

export const ErrorCodeSchema = z.enum(ERROR_CODES);

/** Spec §8 on the wire: `{ errorMessage: code }`. */
export const ErrorBody = z.object({
  errorMessage: ErrorCodeSchema,
  /** Which request fields failed validation, for `invalidRequest` only. */
  fields: z.array(z.string()).optional(),
});
export type ErrorBody = z.infer<typeof ErrorBody>;

export interface CallDefinition extends CallPath {
  body?: z.ZodType;
  params?: z.ZodType;
  response: z.ZodType;
}

/** Every call, keyed by the name the spec gives it: where it lives, what it takes, what it answers. */
export const CALLS = {
  signin: { ...CALL_PATHS.signin, body: SignInBody, response: SignInResponse },
  session: { ...CALL_PATHS.session, response: SessionResponse },
  signout: { ...CALL_PATHS.signout, body: Empty, response: SignOutResponse },
  signup: { ...CALL_PATHS.signup, body: SignUpBody, response: SignUpResponse },
  resendVerification: { ...CALL_PATHS.resendVerification, body: ResendVerificationBody, response: ResendVerificationResponse },
  setupAccountFields: { ...CALL_PATHS.setupAccountFields, params: SetupFieldsParams, response: SetupFieldsResponse },
  setupAccount: { ...CALL_PATHS.setupAccount, body: SetupAccountBody, response: SetupAccountResponse },
  verifyEmail: { ...CALL_PATHS.verifyEmail, body: VerifyEmailBody, response: VerifyEmailResponse },
  verifyNewEmail: { ...CALL_PATHS.verifyNewEmail, body: VerifyNewEmailBody, response: VerifyNewEmailResponse },
  forgotPassword: { ...CALL_PATHS.forgotPassword, body: ForgotPasswordBody, response: ForgotPasswordResponse },
  resetPassword: { ...CALL_PATHS.resetPassword, body: ResetPasswordBody, response: ResetPasswordResponse },
  socialAuth: { ...CALL_PATHS.socialAuth, body: SocialAuthBody, response: SocialAuthResponse },
  googleExchange: { ...CALL_PATHS.googleExchange, body: GoogleExchangeBody, response: GoogleExchangeResponse },
  exchangeSSOTransferToken: { ...CALL_PATHS.exchangeSSOTransferToken, body: ExchangeSsoTransferTokenBody, response: ExchangeSsoTransferTokenResponse },
  ssoStart: { ...CALL_PATHS.ssoStart, body: SsoStartBody, response: SsoStartResponse },
  discourseSso: { ...CALL_PATHS.discourseSso, body: DiscourseSsoBody, response: DiscourseSsoResponse },
  termsAgreed: { ...CALL_PATHS.termsAgreed, body: TermsAgreedBody, response: TermsAgreedResponse },
  exchangeOtterToken: { ...CALL_PATHS.exchangeOtterToken, body: ExchangeOtterTokenBody, response: ExchangeOtterTokenResponse },
} as const satisfies Record<keyof typeof CALL_PATHS, CallDefinition>;
