import { ATTRIBUTION_PARAMS, hasControlCharacters, type MessageKey } from '@foyer/contract/core';
import { globalErrorKey, handleFailure, type CallBody, type FailureCode, type FailureHandlers } from '../../lib/api';
import { attributionFromQuery, hubspotToken, marketingTest, planIntent } from '../../lib/attribution';
import { deviceId } from '../../lib/storage';

/** Spec §2: the query parameters the start screen keeps for the return (plus attribution, spec §3). */
export const KEPT_PARAMS = [
  'from',
  'plan',
  'native',
  'chrome',
  'signupSource',
  'useTransferToken',
  'clientAuthenticationPeriodId',
  'lastTouchUrl',
  'marketingTestData',
  ...ATTRIBUTION_PARAMS,
] as const;

/** The recognised parameters of the start address, as a query string to store. */
export function keptQuery(params: URLSearchParams): string {
  const kept = new URLSearchParams();
  for (const name of KEPT_PARAMS) {
    const value = params.get(name);
    if (value !== null && value !== '') kept.set(name, value);
  }
  return kept.toString();
}

/** `native=true`, `chrome=1`, or the bare parameter: any value but false and 0 turns a flag on. */
export function flagParam(params: URLSearchParams, name: 'native' | 'chrome' | 'useTransferToken'): boolean {
  const value = params.get(name);
  return value !== null && value !== 'false' && value !== '0';
}

// The contract's limits (calls.ts): a value past them would refuse the whole exchange, so an
// oversized or control-character value is left out instead of costing the sign-in.
function clipped(value: string | null, max: number): string | undefined {
  const trimmed = value?.trim() ?? '';
  if (trimmed === '' || trimmed.length > max || hasControlCharacters(trimmed)) return undefined;
  return trimmed;
}

type ExchangeBody = CallBody<'googleExchange'>;

/** Spec §7: the Google code exchange's payload, from the returned code and the kept query. */
export function exchangeBody(authorizationCode: string, state: string, kept: URLSearchParams): ExchangeBody {
  const body: ExchangeBody = { authorizationCode, state, deviceId: deviceId(), ...attributionFromQuery(kept) };
  const intent = planIntent(kept);
  if (intent !== undefined) body.initialIntent = intent;
  const hubspot = hubspotToken();
  if (hubspot !== undefined) body.hubspotToken = hubspot;
  const source = clipped(kept.get('signupSource'), 100);
  if (source !== undefined) body.signupSource = source;
  const isMarketingTest = marketingTest();
  if (isMarketingTest !== undefined) body.isMarketingTest = isMarketingTest;
  if (flagParam(kept, 'useTransferToken')) body.useTransferToken = true;
  const lastTouchUrl = clipped(kept.get('lastTouchUrl'), 2048);
  if (lastTouchUrl !== undefined) body.lastTouchUrl = lastTouchUrl;
  const period = clipped(kept.get('clientAuthenticationPeriodId'), 100);
  if (period !== undefined) body.clientAuthenticationPeriodId = period;
  const testData = clipped(kept.get('marketingTestData'), 2048);
  if (testData !== undefined) body.marketingTestData = testData;
  return body;
}

export interface SocialFailure {
  key: MessageKey;
  /** Spec §8: ssoRequired comes with a sign-in-with-SSO link. */
  ssoLink?: boolean;
  /** The address the refusal was about, which the SSO link fills in (contract ErrorBody.email). */
  email?: string;
}

const text =
  (key: MessageKey, ssoLink = false) =>
  (): SocialFailure =>
    ssoLink ? { key, ssoLink } : { key };

/** Spec §8, sign-up and Google: each code the exchange answers with, and the global fallback. */
const HANDLERS: FailureHandlers<SocialFailure> = {
  ssoRequired: text('error.ssoRequired', true),
  deactivatedAccount: text('error.deactivatedAccount'),
  emailNotVerified: text('social.emailNotVerified'),
  invalidState: text('social.stateMismatch'),
  socialAuthFailed: text('social.failed'),
  unavailable: text('social.unavailable'),
  notFound: text('social.unavailable'),
};

/** A refusal's failure; ssoRequired's body names the address Google vouched for (decision 0022). */
export function socialFailure(code: FailureCode, body?: unknown): SocialFailure {
  const failure = handleFailure<SocialFailure>(code, HANDLERS, (other) => ({ key: globalErrorKey(other) }));
  if (failure.ssoLink !== true || typeof body !== 'object' || body === null || !('email' in body)) return failure;
  const { email } = body;
  return typeof email === 'string' && email.trim() !== '' && email.length <= 320 ? { ...failure, email: email.trim() } : failure;
}
