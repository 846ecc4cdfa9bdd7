import { normalizeEmail } from '@foyer/contract';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { callRoute } from '../../lib/call-route.js';
import { requestMeta } from '../audit/audit.service.js';
import { localeFromAcceptLanguage } from '../mail/mail.template.js';
import { requireReCaptcha } from '../recaptcha/recaptcha.service.js';
import { resendByLink, resendBySignIn } from './resend.service.js';
import { RESEND_PER_EMAIL, RESEND_PER_IP, RESEND_PER_LINK, SIGNUP_PER_EMAIL, SIGNUP_PER_IP } from './signup.limits.js';
import { resendVerification, signUp, type SignUpContext } from './signup.service.js';
import { clientOf } from '../../lib/rate-limit.js';
import { clientAddress } from '../../lib/trust-proxy.js';

/** Who asks and in which language: the mail of every sign-up call is written in the visitor's. */
function signUpContext(request: FastifyRequest): SignUpContext {
  return { meta: requestMeta(request), locale: localeFromAcceptLanguage(request.headers['accept-language']) };
}

export const signupRoutes: FastifyPluginAsyncZod = async (app) => {
  callRoute(app, 'signup', {
    summary: 'Creates an unverified account and emails a verification link; a known email gets the same answer',
    // Cheap refusals first: the rate limits run before the handler's call to the bot-check service.
    rateLimits: [
      { rule: SIGNUP_PER_IP, key: clientOf },
      { rule: SIGNUP_PER_EMAIL, key: (request) => normalizeEmail(request.body.email) },
    ],
    handler: async (request) => {
      await requireReCaptcha(app.config, { token: request.body.reCaptchaToken, remoteIp: clientAddress(request) }, request.log);
      const { signupId } = await signUp(app, request.body, signUpContext(request));
      app.mail.nudge();
      // No redirectUrl: an account is of no use before its email is verified, so the browser
      // shows "Check your email"; redirectTo takes effect at setup (decision 0009).
      return { userId: signupId };
    },
  });

  callRoute(app, 'resendVerification', {
    summary: 'Sends the verification email of a sign-up again; answers the same whatever happened',
    rateLimits: [
      { rule: RESEND_PER_IP, key: clientOf },
      { rule: RESEND_PER_EMAIL, key: (request) => normalizeEmail(request.body.email) },
    ],
    handler: async (request) => {
      await resendVerification(app, request.body, signUpContext(request));
      app.mail.nudge();
      return {};
    },
  });

  callRoute(app, 'resendVerificationByLink', {
    summary: 'Sends a fresh verification link for the sign-up of a superseded one; answers the same whatever happened',
    rateLimits: [
      { rule: RESEND_PER_IP, key: clientOf },
      { rule: RESEND_PER_LINK, key: (request) => request.body.token },
    ],
    handler: async (request) => {
      await resendByLink(app, request.body.token, signUpContext(request));
      app.mail.nudge();
      return {};
    },
  });

  callRoute(app, 'resendVerificationBySignIn', {
    summary: 'Sends a fresh verification link after a sign-in refused as unverified; checks the password; answers the same whatever happened',
    // Before any password work, as at sign-in.
    rateLimits: [
      { rule: RESEND_PER_IP, key: clientOf },
      { rule: RESEND_PER_EMAIL, key: (request) => normalizeEmail(request.body.email) },
    ],
    handler: async (request) => {
      await resendBySignIn(app, request.body, signUpContext(request));
      app.mail.nudge();
      return {};
    },
  });
};
