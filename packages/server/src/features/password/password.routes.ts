import { API_BASE, CALLS, ErrorBody, normalizeEmail } from '@foyer/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { WRITE_ERRORS } from '../../lib/http-schemas.js';
import { enforceRateLimits } from '../../lib/rate-limit.js';
import { requestMeta } from '../audit/audit.service.js';
import { localeFromAcceptLanguage } from '../mail/mail.template.js';
import { requireReCaptcha } from '../recaptcha/recaptcha.service.js';
import { requestPasswordReset } from './forgot.service.js';
import { FORGOT_PER_EMAIL, FORGOT_PER_IP, RESET_PER_IP, RESET_PER_TOKEN } from './password.limits.js';
import { resetPassword } from './reset.service.js';

export const passwordRoutes: FastifyPluginAsyncZod = async (app) => {
  app.route({
    method: CALLS.forgotPassword.method,
    url: API_BASE + CALLS.forgotPassword.path,
    schema: {
      tags: ['account'],
      summary: 'Emails a reset link to an active account; answers the same whether or not the email has one',
      body: CALLS.forgotPassword.body,
      response: { 200: CALLS.forgotPassword.response, 409: ErrorBody, 429: ErrorBody, ...WRITE_ERRORS },
    },
    handler: async (request, reply) => {
      // Cheap refusals first: the rate limits before the call to the bot-check service (spec §5).
      await enforceRateLimits(app.rateLimiter, reply, [
        [FORGOT_PER_IP, request.ip],
        [FORGOT_PER_EMAIL, normalizeEmail(request.body.email)],
      ]);
      await requireReCaptcha(app.config, { token: request.body.reCaptchaToken, remoteIp: request.ip }, request.log);
      await requestPasswordReset(app, request.body, {
        meta: requestMeta(request),
        locale: localeFromAcceptLanguage(request.headers['accept-language']),
      });
      // Whether or not mail was queued: the nudge costs the same either way.
      app.mail.nudge();
      return {};
    },
  });

  app.route({
    method: CALLS.resetPassword.method,
    url: API_BASE + CALLS.resetPassword.path,
    schema: {
      tags: ['account'],
      summary: 'Sets a new password with an emailed link; ends every session of the account',
      body: CALLS.resetPassword.body,
      response: { 200: CALLS.resetPassword.response, 409: ErrorBody, 410: ErrorBody, 429: ErrorBody, ...WRITE_ERRORS },
    },
    handler: async (request, reply) => {
      await enforceRateLimits(app.rateLimiter, reply, [
        [RESET_PER_IP, request.ip],
        [RESET_PER_TOKEN, request.body.token],
      ]);
      await resetPassword(app, request.body, {
        meta: requestMeta(request),
        locale: localeFromAcceptLanguage(request.headers['accept-language']),
      });
      app.mail.nudge();
      return {};
    },
  });
};
