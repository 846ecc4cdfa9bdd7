import { normalizeEmail } from '@foyer/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { callRoute } from '../../lib/call-route.js';
import { requestMeta } from '../audit/audit.service.js';
import { localeFromAcceptLanguage } from '../mail/mail.template.js';
import { requireReCaptcha } from '../recaptcha/recaptcha.service.js';
import { requestPasswordReset } from './forgot.service.js';
import { FORGOT_PER_EMAIL, FORGOT_PER_IP, RESET_PER_IP, RESET_PER_TOKEN } from './password.limits.js';
import { checkResetLink, resetPassword } from './reset.service.js';
import { clientOf } from '../../lib/rate-limit.js';
import { clientAddress } from '../../lib/trust-proxy.js';

export const passwordRoutes: FastifyPluginAsyncZod = async (app) => {
  callRoute(app, 'forgotPassword', {
    summary: 'Emails a reset link to an active account; answers the same whether or not the email has one',
    // Cheap refusals first: the rate limits run before the handler's call to the bot-check service (spec §5).
    rateLimits: [
      { rule: FORGOT_PER_IP, key: clientOf },
      { rule: FORGOT_PER_EMAIL, key: (request) => normalizeEmail(request.body.email) },
    ],
    handler: async (request) => {
      await requireReCaptcha(app.config, { token: request.body.reCaptchaToken, remoteIp: clientAddress(request) }, request.log);
      await requestPasswordReset(app, request.body, {
        meta: requestMeta(request),
        locale: localeFromAcceptLanguage(request.headers['accept-language']),
      });
      // Whether or not mail was queued: the nudge costs the same either way.
      app.mail.nudge();
      return {};
    },
  });

  callRoute(app, 'resetPasswordCheck', {
    summary: 'Whether a reset link still works, and whose account it is; spends nothing',
    handler: async (request, reply) => {
      void reply.header('cache-control', 'no-store');
      return checkResetLink(app, request.params.token);
    },
  });

  callRoute(app, 'resetPassword', {
    summary: 'Sets a new password with an emailed link; ends every session of the account',
    rateLimits: [
      { rule: RESET_PER_IP, key: clientOf },
      { rule: RESET_PER_TOKEN, key: (request) => request.body.token },
    ],
    handler: async (request) => {
      await resetPassword(app, request.body, {
        meta: requestMeta(request),
        locale: localeFromAcceptLanguage(request.headers['accept-language']),
      });
      app.mail.nudge();
      return {};
    },
  });
};
