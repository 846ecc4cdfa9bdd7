import { API_BASE, CALLS, ErrorBody, normalizeEmail } from '@foyer/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { WRITE_ERRORS } from '../../lib/http-schemas.js';
import { enforceRateLimits } from '../../lib/rate-limit.js';
import { requestMeta } from '../audit/audit.service.js';
import { readSessionToken, startSession } from '../sessions/sessions.http.js';
import { endSession } from '../sessions/sessions.service.js';
import { SIGNIN_PER_IP, signinPerEmail } from './signin.limits.js';
import { verifyCredentials } from './signin.service.js';

export const signinRoutes: FastifyPluginAsyncZod = async (app) => {
  const perEmail = signinPerEmail(app.config.lockoutThreshold);
  app.route({
    method: CALLS.signin.method,
    url: API_BASE + CALLS.signin.path,
    schema: {
      tags: ['account'],
      summary: 'Signs in with email and password; starts a session bound to the device id',
      body: CALLS.signin.body,
      response: { 200: CALLS.signin.response, 401: ErrorBody, 423: ErrorBody, 429: ErrorBody, ...WRITE_ERRORS },
    },
    handler: async (request, reply) => {
      const { email, hashPassword, deviceId } = request.body;
      // Before any password work, so a refused flood costs no argon2 (decision 0010).
      await enforceRateLimits(app.rateLimiter, reply, [
        [SIGNIN_PER_IP, request.ip],
        [perEmail, normalizeEmail(email)],
      ]);
      const userId = await verifyCredentials(app, { email, hashPassword }, requestMeta(request));
      // A sign-in replaces whatever session this browser held: no token outlives a new login.
      await endSession(app, readSessionToken(request, app));
      const otter = await startSession(app, reply, { userId, deviceId });
      return { otter };
    },
  });
};
