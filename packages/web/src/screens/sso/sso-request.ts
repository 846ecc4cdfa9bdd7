import {
  NATIVE_SSO_TRANSFER_URL,
  SSO_LANDING_CODES,
  hasControlCharacters,
  isAppSchemeUrl,
  routePath,
  type MessageKey,
  type RuntimeConfig,
  type SsoLandingCode,
} from '@foyer/contract/core';
// A type only: the schema itself (and zod with it) stays out of the page's code.
import type { SsoClientState } from '@foyer/contract';
import { globalErrorKey, handleFailure, type CallBody, type FailureCode, type FailureHandlers } from '../../lib/api';
import { allowedTarget, withToken } from '../../lib/redirect';
import { flagParam } from '../social-auth/social-auth-request';

/**
 * Spec §7 SSO start `{ email, clientAuthenticationPeriodId, state }`. `state` is decision 0022's
 * JSON: the client kind (spec §3: native or chrome, from the query's flags) and the `returnUrl`
 * that such a client asked the landing page to hand the token to. A web sign-in sends none.
 */
export function ssoStartBody(email: string, params: URLSearchParams): CallBody<'ssoStart'> {
  const body: CallBody<'ssoStart'> = { email };
  const state: SsoClientState = {};
  if (flagParam(params, 'native')) state.clientKind = 'native';
  else if (flagParam(params, 'chrome')) state.clientKind = 'chrome';
  const returnUrl = params.get('returnUrl');
  // The service drops a return address its allow-list refuses; one past the contract's limit
  // would refuse the whole call, so it is left out here instead.
  if (returnUrl !== null && returnUrl !== '' && returnUrl.length <= 2048 && !hasControlCharacters(returnUrl)) state.returnUrl = returnUrl;
  if (Object.keys(state).length > 0) body.state = JSON.stringify(state);
  const period = params.get('clientAuthenticationPeriodId')?.trim() ?? '';
  if (period !== '' && period.length <= 100 && !hasControlCharacters(period)) body.clientAuthenticationPeriodId = period;
  return body;
}

/**
 * Spec §8, SSO start: an email the service cannot route to a connection gets 'Sorry, we didn't
 * recognize your account…'; so does one it refuses as malformed, which no connection could take
 * either. The rate limit and transport failures go to the global fallback.
 */
const START_HANDLERS: FailureHandlers<MessageKey> = {
  ssoNotRecognized: () => 'error.ssoStart',
  invalidRequest: () => 'error.ssoStart',
};

export function ssoStartFailure(code: FailureCode): MessageKey {
  return handleFailure(code, START_HANDLERS, globalErrorKey);
}

/** Spec §8, transfer: a spent, expired or unknown token (or one no token could be) says so. */
const TRANSFER_HANDLERS: FailureHandlers<MessageKey> = {
  ssoTransferFailed: () => 'error.ssoTransfer',
  invalidRequest: () => 'error.ssoTransfer',
};

export function ssoTransferFailure(code: FailureCode): MessageKey {
  return handleFailure(code, TRANSFER_HANDLERS, globalErrorKey);
}

export type LandingOutcome =
  /** `code` is what the address carried (null when it carried neither a code nor a token). */
  | { kind: 'failure'; code: string | null }
  /**
   * Where the page goes after spec §9's second; `native` opens the desktop app. `from`: a web
   * return address, kept for `/ssol/:transferToken` to go to once this browser is signed in.
   */
  | { kind: 'success'; target: string; native: boolean; from?: string };

function isLandingCode(code: string): code is SsoLandingCode {
  return (SSO_LANDING_CODES as readonly string[]).includes(code);
}

/** Spec §8: the text of each landing code; any other value is the unknown error. */
export function landingMessage(code: string | null): MessageKey {
  return code !== null && isLandingCode(code) ? `ssoLanding.${code}` : 'ssoLanding.unknown';
}

/**
 * Spec §8 shows the raw code beside its text. Only a short number is echoed: the address is
 * anyone's to write, and the page must not repeat whatever text a crafted link puts there.
 */
export function shownCode(code: string | null): string | null {
  return code !== null && /^[0-9]{1,6}$/.test(code) ? code : null;
}

/**
 * Spec §4, SSO landing (decision 0022): a code is the failure page. A token goes, after spec §9's
 * second, to the desktop app's transfer address for a native client, to a return address in the
 * app's scheme that the client gave (when this page's allow-list accepts it too), or by default
 * to `/ssol/:transferToken`, which signs this browser in. A web return address never gets the
 * token (decision 0019's rule): it is a credential for the app, and an address of the forum or
 * the marketing site is read by their logs and scripts. Such an address is where the browser
 * goes once signed in.
 */
export function landingOutcome(params: URLSearchParams, config: RuntimeConfig): LandingOutcome {
  const code = params.get('code');
  const transferToken = params.get('transferToken') ?? '';
  if (code !== null || transferToken === '') return { kind: 'failure', code };
  // An app's own return address first (a local build's `foyer-local://…` among them), else the
  // desktop app's fixed transfer address for a native client.
  const returnUrl = allowedTarget(params.get('returnUrl'), config);
  if (returnUrl !== undefined && isAppSchemeUrl(returnUrl)) return { kind: 'success', target: withToken(returnUrl, transferToken), native: true };
  if (flagParam(params, 'native')) return { kind: 'success', target: withToken(NATIVE_SSO_TRANSFER_URL, transferToken), native: true };
  const signIn = routePath('ssoTransfer', { transferToken });
  return returnUrl === undefined
    ? { kind: 'success', target: signIn, native: false }
    : { kind: 'success', target: signIn, native: false, from: returnUrl };
}
