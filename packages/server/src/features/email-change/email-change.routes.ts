import { normalizeEmail } from '@foyer/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { callRoute } from '../../lib/call-route.js';
import { setSessionCookie } from '../../lib/cookies.js';
import { requestMeta } from '../audit/audit.service.js';
import { localeFromAcceptLanguage } from '../mail/mail.template.js';
import { currentSession, readSessionToken, requireSession } from '../sessions/sessions.http.js';
import { endSession } from '../sessions/sessions.service.js';
import { CHANGE_EMAIL_PER_IP, CHANGE_EMAIL_PER_NEW_EMAIL, VERIFY_NEW_EMAIL_PER_IP } from './email-change.limits.js';
import { checkNewEmailLink, requestEmailChange, verifyNewEmail } from './email-change.service.js';
import { clientOf } from '../../lib/rate-limit.js';

export const emailChangeRoutes: FastifyPluginAsyncZod = async (app) => {
  callRoute(app, 'changeEmail', {
    summary: 'Asks, with the current password, to move the signed-in account to a new email; answers the same whether or not it is taken',
    rateLimits: [
      { rule: CHANGE_EMAIL_PER_IP, key: clientOf },
      { rule: CHANGE_EMAIL_PER_NEW_EMAIL, key: (request) => normalizeEmail(request.body.newEmail) },
    ],
    handler: async (request) => {
      const session = await requireSession(app, request);
      const { newEmail, hashPassword } = request.body;
      await requestEmailChange(
        app,
        { userId: session.userId, newEmail, hashPassword },
        { meta: requestMeta(request), locale: localeFromAcceptLanguage(request.headers['accept-language']) },
      );
      app.mail.nudge();
      return {};
    },
  });

  callRoute(app, 'verifyNewEmailCheck', {
    summary: 'The address an email-change link moves to, and whether this browser is signed in to another account; spends nothing',
    handler: async (request) => {
      const session = await currentSession(app, request);
      return checkNewEmailLink(app, request.body, session?.userId);
    },
  });

  callRoute(app, 'verifyNewEmail', {
    summary: 'Moves the account to the address of an emailed link, ends its other sessions and starts one on this device',
    rateLimits: [{ rule: VERIFY_NEW_EMAIL_PER_IP, key: clientOf }],
    handler: async (request, reply) => {
      const done = await verifyNewEmail(app, request.body, requestMeta(request));
      // As at sign-in: whatever session this browser held before ends (no token outlives a new login).
      await endSession(app, readSessionToken(request, app));
      setSessionCookie(reply, app.config, done.session.token);
      return done.redirectUrl === undefined ? { otter: done.session.token } : { otter: done.session.token, redirectUrl: done.redirectUrl };
    },
  });
};
