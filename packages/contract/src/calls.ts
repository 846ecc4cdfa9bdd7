import * as z from 'zod/mini';
import { CLIENT_ERROR_MAX_MESSAGE, CLIENT_ERROR_MAX_STACK, CLIENT_ERROR_ROUTES } from './client-errors.js';
import { ERROR_CODES, type ErrorCode } from './errors.js';
import { CALL_PATHS, type CallPath } from './paths.js';
import { PLAN_INTENTS } from './flags.js';
import { DeviceId, Email, HashPassword, PersonName, PhoneNumber, SignInEmail, Token, text } from './fields.js';

/**
 * Spec §7: the body and answer of every call; where each lives is in paths.ts. Every request
 * string is a `text()` (fields.ts), so none admits control characters; answers are ours and
 * stay plain strings.
 */

const optionalText = z.optional(text().check(z.trim(), z.maxLength(500)));
const signupSource = z.optional(text().check(z.trim(), z.maxLength(100)));
const reCaptchaToken = z.optional(text().check(z.maxLength(4096)));
const oauthState = text().check(z.minLength(16), z.maxLength(200));

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
export const RedirectUrl = z.string().check(z.maxLength(2048));
const Empty = z.object({});

// account/signin
export const SignInBody = z.object({ email: SignInEmail, hashPassword: HashPassword, deviceId: DeviceId });
export const SignInResponse = z.object({ otter: z.string() });

// account/session (GET) and account/signout: the signed-in account for the rest of the product
export const SessionUser = z.object({
  id: z.string(),
  email: z.string(),
  firstName: z.nullable(z.string()),
  lastName: z.nullable(z.string()),
  emailVerified: z.boolean(),
});
export type SessionUser = z.infer<typeof SessionUser>;
export const SessionResponse = z.object({ user: SessionUser, expiresAt: z.string() });
export const SignOutResponse = Empty;

// account/signup
export const SignUpBody = z.extend(Attribution, {
  deviceId: DeviceId,
  email: Email,
  hashPassword: HashPassword,
  firstName: PersonName,
  lastName: PersonName,
  signupSource,
  phoneNumber: z.optional(PhoneNumber),
  initialIntent: z.optional(InitialIntent),
  reCaptchaToken,
  redirectTo: z.optional(text().check(z.maxLength(2048))),
  hubspotToken: optionalText,
});
export const SignUpResponse = z.object({ userId: z.string(), redirectUrl: z.optional(RedirectUrl) });

// account/resendVerification
export const ResendVerificationBody = z.object({ email: Email, userId: text().check(z.maxLength(100)) });
export const ResendVerificationResponse = Empty;

// account/resendVerification/byLink (decision 0020): a fresh link for the sign-up of a superseded one
export const ResendByLinkBody = z.object({ token: Token });
export const ResendByLinkResponse = Empty;

// account/resendVerification/bySignIn (decision 0020): a fresh link after sign-in said unverifiedAccount
export const ResendBySignInBody = z.object({ email: SignInEmail, hashPassword: HashPassword });
export const ResendBySignInResponse = Empty;

// account/setupAccount/fields/{id} (GET): id is the emailed token
export const SETUP_FIELDS = ['firstName', 'lastName', 'hashPassword', 'phoneNumber'] as const;
export const SetupFieldsParams = z.object({ id: Token });
export const SetupFieldsResponse = z.object({
  fields: z.array(z.enum(SETUP_FIELDS)),
  /** The account being set up (decision 0020): shown, and given to password managers. */
  email: z.string(),
  /** For an invitation, the name of the organisation that sent it. */
  organization: z.optional(z.string()),
});

// account/setupAccount
export const SetupAccountBody = z.extend(Attribution, {
  token: Token,
  deviceId: DeviceId,
  firstName: z.optional(PersonName),
  lastName: z.optional(PersonName),
  hashPassword: z.optional(HashPassword),
  phoneNumber: z.optional(PhoneNumber),
  initialIntent: z.optional(InitialIntent),
  hubspotToken: optionalText,
  isMarketingTest: z.optional(z.boolean()),
});
export const SetupAccountResponse = z.object({ otter: z.string(), redirectUrl: z.optional(RedirectUrl) });

// account/verifyEmail (body not shown in the spec: decision 0002)
export const VerifyEmailBody = z.object({ token: Token, deviceId: DeviceId });
export const VerifyEmailResponse = z.object({ otter: z.string(), redirectUrl: z.optional(RedirectUrl) });

// verify new email (path not shown in the spec: decision 0002). `next` is the screen's query
// (spec §2); the answer's redirectUrl is present only when it passed the allow-list (decision 0023).
export const VerifyNewEmailBody = z.object({ token: Token, deviceId: DeviceId, next: z.optional(text().check(z.maxLength(2048))) });
export const VerifyNewEmailResponse = z.object({ otter: z.string(), redirectUrl: z.optional(RedirectUrl) });
// account/verifyNewEmail/check (decision 0023): the new address, and whether this browser is
// signed in to another account than the link's; spends nothing
export const VerifyNewEmailCheckBody = z.object({ token: Token });
export const VerifyNewEmailCheckResponse = z.object({ email: z.string(), signedInElsewhere: z.boolean() });

// account/changeEmail (decision 0023): signed in, the current password asked again
export const ChangeEmailBody = z.object({ newEmail: Email, hashPassword: HashPassword });
export const ChangeEmailResponse = Empty;

// account/forgotPassword
export const ForgotPasswordBody = z.object({ email: Email, reCaptchaToken });
export const ForgotPasswordResponse = Empty;

// account/resetPassword
export const ResetPasswordBody = z.object({ token: Token, hashPassword: HashPassword });
export const ResetPasswordResponse = Empty;

// account/resetPassword/check/{token} (GET, decision 0020): spends nothing
export const ResetCheckParams = z.object({ token: Token });
export const ResetCheckResponse = z.object({ email: z.string() });

// account/socialAuth: starts Google sign-in; the server keeps the PKCE verifier for the state
export const SocialAuthBody = z.object({ state: oauthState });
export const SocialAuthResponse = z.object({ url: z.string() });

// Google code exchange
export const GoogleExchangeBody = z.extend(Attribution, {
  authorizationCode: text().check(z.minLength(1), z.maxLength(4096)),
  /** Decision 0019: the start's state; when left out (spec §7 lists none), the one this browser's start left in its cookie. */
  state: z.optional(oauthState),
  deviceId: DeviceId,
  initialIntent: z.optional(InitialIntent),
  hubspotToken: optionalText,
  signupSource,
  isMarketingTest: z.optional(z.boolean()),
  useTransferToken: z.optional(z.boolean()),
  lastTouchUrl: z.optional(text().check(z.maxLength(2048))),
  clientAuthenticationPeriodId: z.optional(text().check(z.maxLength(100))),
  marketingTestData: z.optional(text().check(z.maxLength(2048))),
});
export const GoogleExchangeResponse = z.object({
  wasSignUp: z.boolean(),
  otter: z.string(),
  transferToken: z.optional(z.string()),
  wasClient: z.boolean(),
});

// account/exchangeSSOTransferToken
export const ExchangeSsoTransferTokenBody = z.object({ token: Token, deviceId: DeviceId });
export const ExchangeSsoTransferTokenResponse = z.object({ otter: z.string() });

// account/exchangeSSOTransferToken/check (decision 0021): the account a token signs in to, and
// whether it belongs to this browser's own sign-in (an SSO sign-in it started); spends nothing
export const TransferCheckBody = z.object({ token: Token });
export const TransferCheckResponse = z.object({ email: z.string(), boundToThisBrowser: z.boolean() });

// SSO start
export const SsoStartBody = z.object({
  email: SignInEmail,
  clientAuthenticationPeriodId: z.optional(text().check(z.maxLength(100))),
  state: z.optional(text().check(z.maxLength(2048))),
});
export const SsoStartResponse = z.object({ url: z.string() });
/** Spec §3: the client kinds an SSO sign-in may be for; the web is neither. */
export const SSO_CLIENT_KINDS = ['native', 'chrome'] as const;
export type SsoClientKind = (typeof SSO_CLIENT_KINDS)[number];
/**
 * The SSO start call's `state` (decision 0022): JSON text naming the client kind and where the
 * landing page goes afterwards (`returnUrl`, checked against the allow-list). Anything else the
 * text holds, or text that is not this JSON, counts as a web sign-in without a return address.
 */
export const SsoClientState = z.object({
  clientKind: z.optional(z.enum(SSO_CLIENT_KINDS)),
  returnUrl: z.optional(z.string().check(z.maxLength(2048))),
});
export type SsoClientState = z.infer<typeof SsoClientState>;

// community/discourseSso and community/termsAgreed (headers X-DeviceId and Authorization)
export const DiscourseSsoBody = z.object({
  // Exactly as the forum sent it: Discourse's base64 may carry line breaks, which are signed too,
  // so CR and LF are the only control characters let through (the text is never stored). The
  // service checks Discourse's own alphabet (decision 0021).
  ssoPayload: z.string().check(z.regex(/^(?:[\r\n]|[^\p{Cc}\p{Cs}])*$/u, 'must not contain control characters'), z.minLength(1), z.maxLength(4096)),
  signature: text().check(z.regex(/^[0-9a-f]{64}$/)),
});
export const DiscourseSsoResponse = z.object({ termsAgreed: z.boolean(), redirectUrl: RedirectUrl });
export const TermsAgreedBody = Empty;
export const TermsAgreedResponse = Empty;

// exchange/otterToken
export const ExchangeOtterTokenBody = z.object({
  otterToken: Token,
  deviceId: DeviceId,
  clientAuthenticationPeriodId: z.optional(text().check(z.maxLength(100))),
});
export const ExchangeOtterTokenResponse = z.object({ deviceToken: z.string() });

// client/errors (decision 0026): an uncaught error of the page, scrubbed by the page and again by the service
const reportText = (max: number) => z.string().check(z.regex(/^(?:[\t\r\n]|[^\p{Cc}\p{Cs}])*$/u, 'must not contain control characters'), z.maxLength(max));
export const ClientErrorBody = z.object({
  message: reportText(CLIENT_ERROR_MAX_MESSAGE).check(z.minLength(1)),
  stack: z.optional(reportText(CLIENT_ERROR_MAX_STACK)),
  route: z.enum(CLIENT_ERROR_ROUTES),
  /** The page's build, as the page names it. */
  release: z.optional(text().check(z.maxLength(100))),
});
export const ClientErrorResponse = Empty;

const count = z.int().check(z.nonnegative());

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
  mail: z.optional(z.object({ due: count, oldestDueAgeMs: z.nullable(count) })),
  /** Only with REDIS_URL: while it is down, rate limits are off. */
  redis: z.optional(z.enum(['ok', 'down'])),
});

export const ErrorCodeSchema = z.enum(ERROR_CODES);

/** Spec §8 on the wire: `{ errorMessage: code }`. */
export const ErrorBody = z.object({
  errorMessage: ErrorCodeSchema,
  /** Which request fields failed validation, for `invalidRequest` only. */
  fields: z.optional(z.array(z.string())),
  /**
   * For `ssoRequired` from the Google exchange only: the address the provider vouched for, so the
   * page can fill it in on SSO sign-in (the page never saw it). Told to the browser that holds
   * the sign-in's state, about the person's own Google account.
   */
  email: z.optional(z.string()),
});
export type ErrorBody = z.infer<typeof ErrorBody>;

export interface CallDefinition extends CallPath {
  body?: z.ZodMiniType;
  params?: z.ZodMiniType;
  response: z.ZodMiniType;
  /**
   * Spec §8: the codes this call answers besides the transport ones every call may answer
   * (errors.ts, `callErrors`). The service answers no other (decision 0017).
   */
  errors: readonly ErrorCode[];
  /** Spec §7: the call identifies the device by the `X-DeviceId` header rather than the body. */
  deviceIdHeader?: true;
}

/**
 * Every call, keyed by the name the spec gives it: where it lives, what it takes, what it answers
 * and with which error codes. The codes of calls not served yet (an `issue` in paths.ts) come from
 * spec §8 and are the shape their capability lands on.
 */
export const CALLS = {
  signin: {
    ...CALL_PATHS.signin,
    body: SignInBody,
    response: SignInResponse,
    errors: ['deactivatedAccount', 'accountLocked', 'unverifiedAccount', 'invalidCredentials', 'ssoRequired', 'rateLimitExeeded'],
  },
  session: { ...CALL_PATHS.session, response: SessionResponse, errors: ['notSignedIn'], deviceIdHeader: true },
  signout: { ...CALL_PATHS.signout, body: Empty, response: SignOutResponse, errors: [] },
  signup: {
    ...CALL_PATHS.signup,
    body: SignUpBody,
    response: SignUpResponse,
    errors: ['ssoRequired', 'rateLimitExeeded', 'reCaptchaFail', 'commonPassword'],
  },
  resendVerification: {
    ...CALL_PATHS.resendVerification,
    body: ResendVerificationBody,
    response: ResendVerificationResponse,
    errors: ['rateLimitExeeded'],
  },
  resendVerificationByLink: {
    ...CALL_PATHS.resendVerificationByLink,
    body: ResendByLinkBody,
    response: ResendByLinkResponse,
    errors: ['rateLimitExeeded'],
  },
  resendVerificationBySignIn: {
    ...CALL_PATHS.resendVerificationBySignIn,
    body: ResendBySignInBody,
    response: ResendBySignInResponse,
    errors: ['rateLimitExeeded'],
  },
  setupAccountFields: {
    ...CALL_PATHS.setupAccountFields,
    params: SetupFieldsParams,
    response: SetupFieldsResponse,
    errors: ['invalidToken', 'tokenExpired', 'alreadyVerified', 'linkSuperseded'],
  },
  setupAccount: {
    ...CALL_PATHS.setupAccount,
    body: SetupAccountBody,
    response: SetupAccountResponse,
    errors: ['invalidToken', 'tokenExpired', 'alreadyVerified', 'linkSuperseded', 'commonPassword'],
  },
  verifyEmail: {
    ...CALL_PATHS.verifyEmail,
    body: VerifyEmailBody,
    response: VerifyEmailResponse,
    errors: ['invalidToken', 'tokenExpired', 'alreadyVerified', 'linkSuperseded', 'accountNotSetUp'],
  },
  verifyNewEmail: {
    ...CALL_PATHS.verifyNewEmail,
    body: VerifyNewEmailBody,
    response: VerifyNewEmailResponse,
    errors: ['invalidToken', 'tokenExpired', 'accountNotSetUp', 'rateLimitExeeded'],
  },
  verifyNewEmailCheck: {
    ...CALL_PATHS.verifyNewEmailCheck,
    body: VerifyNewEmailCheckBody,
    response: VerifyNewEmailCheckResponse,
    errors: ['invalidToken', 'tokenExpired', 'accountNotSetUp'],
  },
  changeEmail: {
    ...CALL_PATHS.changeEmail,
    body: ChangeEmailBody,
    response: ChangeEmailResponse,
    errors: ['notSignedIn', 'invalidCredentials', 'accountLocked', 'rateLimitExeeded'],
    deviceIdHeader: true,
  },
  forgotPassword: {
    ...CALL_PATHS.forgotPassword,
    body: ForgotPasswordBody,
    response: ForgotPasswordResponse,
    errors: ['ssoRequired', 'reCaptchaFail', 'rateLimitExeeded'],
  },
  resetPassword: {
    ...CALL_PATHS.resetPassword,
    body: ResetPasswordBody,
    response: ResetPasswordResponse,
    errors: ['recentPassword', 'invalidToken', 'tokenExpired', 'commonPassword', 'rateLimitExeeded'],
  },
  resetPasswordCheck: {
    ...CALL_PATHS.resetPasswordCheck,
    params: ResetCheckParams,
    response: ResetCheckResponse,
    errors: ['invalidToken', 'tokenExpired'],
  },
  // notFound while no Google client is configured (decision 0019)
  socialAuth: { ...CALL_PATHS.socialAuth, body: SocialAuthBody, response: SocialAuthResponse, errors: ['notFound', 'invalidState', 'rateLimitExeeded'] },
  googleExchange: {
    ...CALL_PATHS.googleExchange,
    body: GoogleExchangeBody,
    response: GoogleExchangeResponse,
    errors: ['notFound', 'invalidState', 'socialAuthFailed', 'ssoRequired', 'deactivatedAccount', 'emailNotVerified'],
  },
  exchangeSSOTransferToken: {
    ...CALL_PATHS.exchangeSSOTransferToken,
    body: ExchangeSsoTransferTokenBody,
    response: ExchangeSsoTransferTokenResponse,
    errors: ['ssoTransferFailed'],
  },
  exchangeSSOTransferTokenCheck: {
    ...CALL_PATHS.exchangeSSOTransferTokenCheck,
    body: TransferCheckBody,
    response: TransferCheckResponse,
    errors: ['ssoTransferFailed'],
  },
  ssoStart: { ...CALL_PATHS.ssoStart, body: SsoStartBody, response: SsoStartResponse, errors: ['ssoNotRecognized', 'rateLimitExeeded'] },
  // notFound while forum sign-in is not configured (decision 0021)
  discourseSso: {
    ...CALL_PATHS.discourseSso,
    body: DiscourseSsoBody,
    response: DiscourseSsoResponse,
    errors: ['notSignedIn', 'notFound', 'invalidSsoPayload', 'rateLimitExeeded'],
    deviceIdHeader: true,
  },
  termsAgreed: {
    ...CALL_PATHS.termsAgreed,
    body: TermsAgreedBody,
    response: TermsAgreedResponse,
    errors: ['notSignedIn', 'notFound'],
    deviceIdHeader: true,
  },
  exchangeOtterToken: {
    ...CALL_PATHS.exchangeOtterToken,
    body: ExchangeOtterTokenBody,
    response: ExchangeOtterTokenResponse,
    errors: ['invalidToken', 'tokenExpired'],
  },
  clientErrors: { ...CALL_PATHS.clientErrors, body: ClientErrorBody, response: ClientErrorResponse, errors: ['rateLimitExeeded'] },
} as const satisfies Record<keyof typeof CALL_PATHS, CallDefinition>;
