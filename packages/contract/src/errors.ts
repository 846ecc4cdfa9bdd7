/**
 * Spec §8: every error code the service answers with, in one registry. The wire answer is
 * `{ errorMessage: code }`; the web maps each code to the spec's text in the visitor's language.
 * `rateLimitExeeded` is spelt as the spec spells it.
 */
export const ERROR_CODES = [
  // sign-in
  'deactivatedAccount',
  'accountLocked',
  'unverifiedAccount',
  'invalidCredentials',
  // sign-up, Google, forgot password
  'ssoRequired',
  'rateLimitExeeded',
  'reCaptchaFail',
  // reset password, setup, verify
  'recentPassword',
  'commonPassword',
  'invalidToken',
  'tokenExpired',
  'accountNotSetUp',
  // a verification link that ended, told apart so the screen can offer the way on (decision 0020)
  'alreadyVerified',
  'linkSuperseded',
  // Google (decision 0019)
  'invalidState',
  'socialAuthFailed',
  'emailNotVerified',
  // SSO
  'ssoNotRecognized',
  'ssoTransferFailed',
  // community forum (decision 0021): a DiscourseConnect request Foyer will not answer
  'invalidSsoPayload',
  // sessions and transport
  'notSignedIn',
  'xsrfMismatch',
  'invalidRequest',
  'notFound',
  'unavailable',
  'unexpectedError',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** The HTTP status each code travels with. */
export const ERROR_STATUS: Record<ErrorCode, number> = {
  deactivatedAccount: 403,
  accountLocked: 423,
  unverifiedAccount: 403,
  invalidCredentials: 401,
  ssoRequired: 409,
  rateLimitExeeded: 429,
  reCaptchaFail: 400,
  recentPassword: 409,
  commonPassword: 400,
  invalidToken: 400,
  tokenExpired: 410,
  accountNotSetUp: 409,
  alreadyVerified: 409,
  linkSuperseded: 410,
  invalidState: 400,
  socialAuthFailed: 401,
  emailNotVerified: 403,
  ssoNotRecognized: 404,
  ssoTransferFailed: 400,
  invalidSsoPayload: 400,
  notSignedIn: 401,
  xsrfMismatch: 403,
  invalidRequest: 400,
  notFound: 404,
  unavailable: 503,
  unexpectedError: 500,
};

/**
 * Codes any call may answer whatever it does (decision 0017): a request its schema refuses
 * (`invalidRequest`, also for a body too large or of the wrong type), the database down
 * (`unavailable`, decision 0011) and a fault of ours (`unexpectedError`). State-changing calls
 * add `xsrfMismatch` (spec §7: the XSRF header must match its cookie). A call's own codes are
 * listed beside it (calls.ts).
 */
export const TRANSPORT_ERRORS = ['invalidRequest', 'unavailable', 'unexpectedError'] as const satisfies readonly ErrorCode[];
export const WRITE_TRANSPORT_ERRORS = [...TRANSPORT_ERRORS, 'xsrfMismatch'] as const satisfies readonly ErrorCode[];

/** Every code a call may answer: its own (spec §8, listed with the call) and the transport ones. */
export function callErrors(call: { method: 'GET' | 'POST'; errors: readonly ErrorCode[] }): ErrorCode[] {
  const transport: readonly ErrorCode[] = call.method === 'GET' ? TRANSPORT_ERRORS : WRITE_TRANSPORT_ERRORS;
  return [...new Set([...call.errors, ...transport])];
}

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && (ERROR_CODES as readonly string[]).includes(value);
}

/** Spec §8: SSO landing codes; the raw code is shown too. Any other value is unknown. */
export const SSO_LANDING_CODES = ['1001', '1002', '1003', '1004', '1005'] as const;
export type SsoLandingCode = (typeof SSO_LANDING_CODES)[number];
