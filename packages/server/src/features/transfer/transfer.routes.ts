import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { callRoute } from '../../lib/call-route.js';
import { setSessionCookie } from '../../lib/cookies.js';
import { requestMeta } from '../audit/audit.service.js';
import { readSessionToken } from '../sessions/sessions.http.js';
import { endSession } from '../sessions/sessions.service.js';
import { presentedBinding } from '../sso/sso.binding.js';
import { checkTransferToken, exchangeTransferToken } from './transfer.service.js';

export const transferRoutes: FastifyPluginAsyncZod = async (app) => {
  callRoute(app, 'exchangeSSOTransferToken', {
    summary: 'Turns a one-time transfer token (Google or SSO sign-in of a native app) into a session for the device, once',
    handler: async (request, reply) => {
      const { token } = await exchangeTransferToken(app, request.body, requestMeta(request), presentedBinding(request, app.config));
      // As at sign-in, a session this browser (or app) held before ends: no token outlives a new
      // sign-in, and a shared browser's earlier person is not left signed in without a cookie.
      await endSession(app, readSessionToken(request, app));
      // The web's /ssol/:transferToken screen signs this browser in; an app reads `otter`.
      setSessionCookie(reply, app.config, token);
      return { otter: token };
    },
  });

  callRoute(app, 'exchangeSSOTransferTokenCheck', {
    summary: 'Whose account a transfer token signs in to, and whether this browser started that sign-in; spends nothing',
    handler: async (request) => checkTransferToken(app, request.body, presentedBinding(request, app.config)),
  });
};
