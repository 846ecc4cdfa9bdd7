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
  // SSO
  'ssoNotRecognized',
  'ssoTransferFailed',
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
  ssoNotRecognized: 404,
  ssoTransferFailed: 400,
  notSignedIn: 401,
  xsrfMismatch: 403,
  invalidRequest: 400,
  notFound: 404,
  unavailable: 503,
  unexpectedError: 500,
};

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && (ERROR_CODES as readonly string[]).includes(value);
}

/** Spec §8: SSO landing codes; the raw code is shown too. Any other value is unknown. */
export const SSO_LANDING_CODES = ['1001', '1002', '1003', '1004', '1005'] as const;
export type SsoLandingCode = (typeof SSO_LANDING_CODES)[number];
