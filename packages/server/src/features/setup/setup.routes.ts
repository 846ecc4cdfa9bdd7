import { API_BASE, CALLS, ErrorBody } from '@foyer/contract';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { setSessionCookie } from '../../lib/cookies.js';
import { READ_ERRORS, WRITE_ERRORS } from '../../lib/http-schemas.js';
import { requestMeta } from '../audit/audit.service.js';
import { readSessionToken } from '../sessions/sessions.http.js';
import { endSession } from '../sessions/sessions.service.js';
import { completeSetup, setupFields, type CompletedSetup } from './setup.service.js';

export const setupRoutes: FastifyPluginAsyncZod = async (app) => {
  app.route({
    method: CALLS.setupAccountFields.method,
    url: API_BASE + CALLS.setupAccountFields.path,
    schema: {
      tags: ['account'],
      summary: 'Which fields the account of an emailed link still lacks; spends nothing',
      params: CALLS.setupAccountFields.params,
      response: { 200: CALLS.setupAccountFields.response, 400: ErrorBody, 410: ErrorBody, ...READ_ERRORS },
    },
    handler: async (request, reply) => {
      void reply.header('cache-control', 'no-store');
      return { fields: await setupFields(app, request.params.id) };
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

  app.route({
    method: CALLS.setupAccount.method,
    url: API_BASE + CALLS.setupAccount.path,
    schema: {
      tags: ['account'],
      summary: 'Stores the missing fields, verifies the email, spends the token and starts a session',
      body: CALLS.setupAccount.body,
      response: { 200: CALLS.setupAccount.response, 410: ErrorBody, ...WRITE_ERRORS },
    },
    handler: async (request, reply) => answer(request, reply, await completeSetup(app, request.body, requestMeta(request), 'setup')),
  });

  app.route({
    method: CALLS.verifyEmail.method,
    url: API_BASE + CALLS.verifyEmail.path,
    schema: {
      tags: ['account'],
      summary: 'Verifies the email of an account that lacks no required field, spends the token and starts a session',
      body: CALLS.verifyEmail.body,
      response: { 200: CALLS.verifyEmail.response, 409: ErrorBody, 410: ErrorBody, ...WRITE_ERRORS },
    },
    handler: async (request, reply) => answer(request, reply, await completeSetup(app, request.body, requestMeta(request), 'verify')),
  });
};
