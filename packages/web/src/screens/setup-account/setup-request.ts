import { ROUTES, type MessageKey, type RuntimeConfig } from '@foyer/contract/core';
import type { SETUP_FIELDS } from '@foyer/contract';
import { matchPath } from 'react-router';
import { fetchAnswer } from '../../lib/answers';
import { globalErrorKey, handleFailure, type CallBody, type FailureCode, type FailureHandlers } from '../../lib/api';
import { attributionFromQuery, hubspotToken, marketingTest, planIntent } from '../../lib/attribution';
import { allowedTarget } from '../../lib/redirect';
import { trackAccountVerified } from '../../lib/third-party/tag-manager';
import { deviceId } from '../../lib/storage';

export type SetupField = (typeof SETUP_FIELDS)[number];

/** What the form adds to the body: only the fields the server asked for. */
export type SetupAnswers = Pick<CallBody<'setupAccount'>, 'firstName' | 'lastName' | 'hashPassword' | 'phoneNumber'>;

/**
 * `way`: what a verification link that ended offers instead of the way back (decision 0020):
 * sign-in when the account is verified already, a fresh link when a newer one replaced it.
 */
export type SetupFailure = { key: MessageKey; deadLink: boolean; way?: 'signIn' | 'sendAnother' };

/**
 * Spec §8, setup: an invalid and an expired link have their own texts; a token too long for the
 * contract fails the request's validation (invalidRequest) and is the same invalid link, since the token is the
 * only part of the request nobody typed. A verification link used already, or replaced by a newer
 * one, says so and offers the way on (decision 0020). The rate limit and transport failures keep their global
 * texts; anything else is 'An unknown error has occurred.'. `deadLink` failures cannot be fixed
 * by trying again, so the screen offers the way back to sign-in instead of the form.
 */
const SETUP_HANDLERS: FailureHandlers<SetupFailure> = {
  invalidToken: () => ({ key: 'error.setupInvalidToken', deadLink: true }),
  invalidRequest: () => ({ key: 'error.setupInvalidToken', deadLink: true }),
  tokenExpired: () => ({ key: 'error.setupTokenExpired', deadLink: true }),
  alreadyVerified: () => ({ key: 'error.alreadyVerified', deadLink: true, way: 'signIn' }),
  linkSuperseded: () => ({ key: 'error.linkSuperseded', deadLink: true, way: 'sendAnother' }),
  rateLimitExeeded: (code) => ({ key: globalErrorKey(code), deadLink: false }),
  network: (code) => ({ key: globalErrorKey(code), deadLink: false }),
  aborted: (code) => ({ key: globalErrorKey(code), deadLink: false }),
  timeout: (code) => ({ key: globalErrorKey(code), deadLink: false }),
  unsupportedProtocol: (code) => ({ key: globalErrorKey(code), deadLink: false }),
  commonPassword: (code) => ({ key: globalErrorKey(code), deadLink: false }),
};

export function setupFailure(code: FailureCode): SetupFailure {
  return handleFailure(code, SETUP_HANDLERS, () => ({ key: 'error.setupUnknown', deadLink: false }));
}

/**
 * Spec §7: POST account/setupAccount with the token, the device id, the attribution of the
 * query, the plan intent, the marketing tracker's cookie and the stored marketing-test flag.
 * The server sets the session cookie itself (the page never stores `otter`); on success the
 * browser goes to the server's address when the allow-list accepts it, else the default home.
 * A verification link (`/verify-email/:token`, not an invitation's setup link) is spec §4's
 * account verification: its tracking goes first, waiting for the tag manager 2000 ms at most.
 */
export async function completeSetup(
  token: string,
  answers: SetupAnswers,
  params: URLSearchParams,
  config: RuntimeConfig,
  signal?: AbortSignal,
): Promise<SetupFailure | null> {
  const body: CallBody<'setupAccount'> = {
    token,
    deviceId: deviceId(),
    ...attributionFromQuery(params),
    initialIntent: planIntent(params),
    hubspotToken: hubspotToken(),
    isMarketingTest: marketingTest(),
    ...answers,
  };
  const result = await fetchAnswer('setupAccount', signal === undefined ? { body } : { body, signal });
  if (!result.ok) return setupFailure(result.code);
  if (matchPath(ROUTES.verifyEmail, window.location.pathname) !== null) await trackAccountVerified(config);
  window.location.assign(allowedTarget(result.data.redirectUrl, config) ?? config.defaultHome);
  return null;
}
