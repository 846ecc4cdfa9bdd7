import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { callRoute } from '../../lib/call-route.js';
import { clearSessionCookie } from '../../lib/cookies.js';
import { unitOfWork } from '../../lib/unit-of-work.js';
import { recordAudit, requestMeta } from '../audit/audit.service.js';
import { readSessionToken, requireSession } from './sessions.http.js';
import { endSession } from './sessions.service.js';

export const sessionsRoutes: FastifyPluginAsyncZod = async (app) => {
  callRoute(app, 'session', {
    summary: 'The signed-in account of this device',
    handler: async (request) => {
      const session = await requireSession(app, request);
      return { user: session.user, expiresAt: new Date(session.expiresAt).toISOString() };
    },
  });

  callRoute(app, 'signout', {
    summary: 'Ends this session on the server and clears its cookie',
    handler: async (request, reply) => {
      const userId = await endSession(app, readSessionToken(request, app));
      if (userId !== undefined) await recordAudit(unitOfWork(app), { type: 'signout', meta: requestMeta(request), userId });
      clearSessionCookie(reply, app.config);
      return {};
    },
  });
};
