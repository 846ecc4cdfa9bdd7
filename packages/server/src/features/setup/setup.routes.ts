import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { callRoute } from '../../lib/call-route.js';
import { setSessionCookie } from '../../lib/cookies.js';
import { requestMeta } from '../audit/audit.service.js';
import { readSessionToken } from '../sessions/sessions.http.js';
import { endSession } from '../sessions/sessions.service.js';
import { completeSetup, setupFields, type CompletedSetup } from './setup.service.js';

export const setupRoutes: FastifyPluginAsyncZod = async (app) => {
  callRoute(app, 'setupAccountFields', {
    summary: 'Which fields the account of an emailed link still lacks, and whose account it is; spends nothing',
    handler: async (request, reply) => {
      void reply.header('cache-control', 'no-store');
      return setupFields(app, request.params.id);
    },
  });

  /**
   * The session starts inside setup's transaction; the cookie is set once it committed. As at
   * sign-in, a session this browser held before is ended (no token outlives a new login).
   */
  const answer = async (request: FastifyRequest, reply: FastifyReply, done: CompletedSetup) => {
    await endSession(app, readSessionToken(request, app));
    setSessionCookie(reply, app.config, done.session.token);
    return done.redirectUrl === undefined ? { otter: done.session.token } : { otter: done.session.token, redirectUrl: done.redirectUrl };
  };

  callRoute(app, 'setupAccount', {
    summary: 'Stores the missing fields, verifies the email, spends the token and starts a session',
    handler: async (request, reply) => answer(request, reply, await completeSetup(app, request.body, requestMeta(request), 'setup')),
  });

  callRoute(app, 'verifyEmail', {
    summary: 'Verifies the email of an account that lacks no required field, spends the token and starts a session',
    handler: async (request, reply) => answer(request, reply, await completeSetup(app, request.body, requestMeta(request), 'verify')),
  });
};
