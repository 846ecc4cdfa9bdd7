import { API_BASE, CALLS, ErrorBody, normalizeEmail } from '@foyer/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { WRITE_ERRORS } from '../../lib/http-schemas.js';
import { enforceRateLimits } from '../../lib/rate-limit.js';
import { requestMeta } from '../audit/audit.service.js';
import { localeFromAcceptLanguage } from '../mail/mail.template.js';
import { requireReCaptcha } from '../recaptcha/recaptcha.service.js';
import { RESEND_PER_EMAIL, RESEND_PER_IP, SIGNUP_PER_EMAIL, SIGNUP_PER_IP } from './signup.limits.js';
import { resendVerification, signUp } from './signup.service.js';

export const signupRoutes: FastifyPluginAsyncZod = async (app) => {
  app.route({
    method: CALLS.signup.method,
    url: API_BASE + CALLS.signup.path,
    schema: {
      tags: ['account'],
      summary: 'Creates an unverified account and emails a verification link; a known email gets the same answer',
      body: CALLS.signup.body,
      response: { 200: CALLS.signup.response, 409: ErrorBody, 429: ErrorBody, ...WRITE_ERRORS },
    },
    handler: async (request, reply) => {
      // Cheap refusals first: the rate limit before the call to the bot-check service.
      await enforceRateLimits(app.rateLimiter, reply, [
        [SIGNUP_PER_IP, request.ip],
        [SIGNUP_PER_EMAIL, normalizeEmail(request.body.email)],
      ]);
      await requireReCaptcha(app.config, { token: request.body.reCaptchaToken, remoteIp: request.ip }, request.log);
      const { signupId } = await signUp(app, request.body, {
        meta: requestMeta(request),
        locale: localeFromAcceptLanguage(request.headers['accept-language']),
      });
      app.mail.nudge();
      // No redirectUrl: an account is of no use before its email is verified, so the browser
      // shows "Check your email"; redirectTo takes effect at setup (decision 0009).
      return { userId: signupId };
    },
  });

  app.route({
    method: CALLS.resendVerification.method,
    url: API_BASE + CALLS.resendVerification.path,
    schema: {
      tags: ['account'],
      summary: 'Sends the verification email of a sign-up again; answers the same whatever happened',
      body: CALLS.resendVerification.body,
      response: { 200: CALLS.resendVerification.response, 429: ErrorBody, ...WRITE_ERRORS },
    },
    handler: async (request, reply) => {
      await enforceRateLimits(app.rateLimiter, reply, [
        [RESEND_PER_IP, request.ip],
        [RESEND_PER_EMAIL, normalizeEmail(request.body.email)],
      ]);
      await resendVerification(app, request.body, requestMeta(request));
      app.mail.nudge();
      return {};
    },
  });
};
