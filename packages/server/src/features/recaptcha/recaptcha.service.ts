import type { FastifyBaseLogger } from 'fastify';
import { z } from 'zod';
import type { Config } from '../../config.js';
import { AppError } from '../../lib/errors.js';

/** Google's siteverify answer; other fields (score, action for v3) are not relied on. */
const SiteVerifyAnswer = z.object({
  success: z.boolean(),
  challenge_ts: z.string().optional(),
  hostname: z.string().optional(),
  'error-codes': z.array(z.string()).optional(),
});

/** A verify call that hangs must not hold a sign-up open. */
const VERIFY_TIMEOUT_MS = 5000;

export type ReCaptchaConfig = Pick<Config, 'reCaptchaSiteKey' | 'reCaptchaSecret' | 'reCaptchaVerifyUrl'>;

/** Spec §5: the bot check runs only when a site key is configured. */
export function reCaptchaEnabled(config: ReCaptchaConfig): boolean {
  return config.reCaptchaSiteKey !== undefined;
}

/**
 * Asks the verification service whether a token is good. Fails closed: a missing token, a
 * `success: false`, a missing secret, and any failure of the call itself (unreachable, timeout,
 * non-200, an answer that is not the expected JSON) all count as a failed check, because letting
 * bots through whenever Google is unreachable would make the check worthless (decision 0009).
 */
export async function verifyReCaptcha(
  config: ReCaptchaConfig,
  input: { token: string | undefined; remoteIp: string | undefined },
  log: FastifyBaseLogger,
): Promise<boolean> {
  if (input.token === undefined || input.token === '') return false;
  if (config.reCaptchaSecret === undefined) {
    log.warn('RECAPTCHA_SITE_KEY is set without RECAPTCHA_SECRET: every bot check fails');
    return false;
  }
  const form = new URLSearchParams({ secret: config.reCaptchaSecret, response: input.token });
  if (input.remoteIp !== undefined) form.set('remoteip', input.remoteIp);
  try {
    const response = await fetch(config.reCaptchaVerifyUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: form,
      signal: AbortSignal.timeout(VERIFY_TIMEOUT_MS),
    });
    if (!response.ok) {
      log.warn({ status: response.status }, 'reCAPTCHA verification answered an error status');
      return false;
    }
    const answer = SiteVerifyAnswer.safeParse(await response.json());
    if (!answer.success) {
      log.warn('reCAPTCHA verification answered something unexpected');
      return false;
    }
    if (!answer.data.success) log.info({ errorCodes: answer.data['error-codes'] ?? [] }, 'reCAPTCHA check failed');
    return answer.data.success;
  } catch (error) {
    log.warn({ err: error }, 'reCAPTCHA verification unreachable; failing closed');
    return false;
  }
}

/** Throws 400 reCaptchaFail when the check is configured and does not pass. */
export async function requireReCaptcha(
  config: ReCaptchaConfig,
  input: { token: string | undefined; remoteIp: string | undefined },
  log: FastifyBaseLogger,
): Promise<void> {
  if (!reCaptchaEnabled(config)) return;
  if (!(await verifyReCaptcha(config, input, log))) throw new AppError('reCaptchaFail');
}
