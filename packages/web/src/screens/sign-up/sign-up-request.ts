import type { MessageKey, RuntimeConfig } from '@foyer/contract/core';
import { globalErrorKey, handleFailure, type CallBody, type FailureCode, type FailureHandlers } from '../../lib/api';
import { attributionFromQuery, hubspotToken, planIntent, signupSource } from '../../lib/attribution';
import { allowedTarget } from '../../lib/redirect';
import { deviceId } from '../../lib/storage';

export interface SignUpValues {
  firstName: string;
  lastName: string;
  email: string;
  password: string;
  phone: string;
}

/**
 * Spec §7: the sign-up body. What the person typed (trimmed), plus what the page knows about
 * how they arrived: attribution, sign-up source and plan from the query, the marketing
 * tracker's cookie, and `from` as `redirectTo` when the allow-list accepts it.
 */
export function signUpBody(
  values: SignUpValues,
  secrets: { hashPassword: string; reCaptchaToken: string | undefined },
  params: URLSearchParams,
  config: RuntimeConfig,
): CallBody<'signup'> {
  const phone = values.phone.trim();
  return {
    deviceId: deviceId(),
    email: values.email.trim(),
    hashPassword: secrets.hashPassword,
    firstName: values.firstName.trim(),
    lastName: values.lastName.trim(),
    ...attributionFromQuery(params),
    signupSource: signupSource(params),
    phoneNumber: phone === '' ? undefined : phone,
    initialIntent: planIntent(params),
    reCaptchaToken: secrets.reCaptchaToken,
    redirectTo: allowedTarget(params.get('from'), config),
    hubspotToken: hubspotToken(),
  };
}

/**
 * Spec §8, sign-up: SSO-only organisations and the bot check have their own texts; the rate
 * limit and transport failures go to the global fallback, and everything else (invalidRequest
 * included) is 'There was an unexpected error.'.
 */
const SIGN_UP_HANDLERS: FailureHandlers<MessageKey> = {
  ssoRequired: () => 'error.ssoRequired',
  reCaptchaFail: () => 'error.reCaptchaFail',
};

export function signUpFailure(code: FailureCode): MessageKey {
  return handleFailure(code, SIGN_UP_HANDLERS, globalErrorKey);
}
