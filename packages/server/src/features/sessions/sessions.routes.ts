import { API_BASE, CALLS, ErrorBody } from '@foyer/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { clearSessionCookie } from '../../lib/cookies.js';
import { READ_ERRORS, WRITE_ERRORS } from '../../lib/http-schemas.js';
import { unitOfWork } from '../../lib/unit-of-work.js';
import { recordAudit, requestMeta } from '../audit/audit.service.js';
import { readSessionToken, requireSession } from './sessions.http.js';
import { endSession } from './sessions.service.js';

export const sessionsRoutes: FastifyPluginAsyncZod = async (app) => {
  app.route({
    method: CALLS.session.method,
    url: API_BASE + CALLS.session.path,
    schema: {
      tags: ['account'],
      summary: 'The signed-in account of this device',
      response: { 200: CALLS.session.response, 401: ErrorBody, ...READ_ERRORS },
    },
    handler: async (request) => {
      const session = await requireSession(app, request);
      return { user: session.user, expiresAt: new Date(session.expiresAt).toISOString() };
    },
  });

  app.route({
    method: CALLS.signout.method,
    url: API_BASE + CALLS.signout.path,
    schema: {
      tags: ['account'],
      summary: 'Ends this session on the server and clears its cookie',
      body: CALLS.signout.body,
      response: { 200: CALLS.signout.response, ...WRITE_ERRORS },
    },
    handler: async (request, reply) => {
      const userId = await endSession(app, readSessionToken(request, app));
      if (userId !== undefined) await recordAudit(unitOfWork(app), { type: 'signout', meta: requestMeta(request), userId });
      clearSessionCookie(reply, app.config);
      return {};
    },
  });
};
