import { normalizeEmail } from '@foyer/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { callRoute } from '../../lib/call-route.js';
import { requestMeta } from '../audit/audit.service.js';
import { setSessionCookie } from '../../lib/cookies.js';
import { readSessionToken } from '../sessions/sessions.http.js';
import { createSession, endSession } from '../sessions/sessions.service.js';
import { SIGNIN_PER_IP, signinPerEmail } from './signin.limits.js';
import { verifyCredentials } from './signin.service.js';

export const signinRoutes: FastifyPluginAsyncZod = async (app) => {
  callRoute(app, 'signin', {
    summary: 'Signs in with email and password; starts a session bound to the device id',
    // Before any password work, so a refused flood costs no argon2 (decision 0010).
    rateLimits: [
      { rule: SIGNIN_PER_IP, key: (request) => request.ip },
      { rule: signinPerEmail(app.config.lockoutThreshold), key: (request) => normalizeEmail(request.body.email) },
    ],
    handler: async (request, reply) => {
      const { email, hashPassword, deviceId } = request.body;
      const previous = readSessionToken(request, app);
      // In the transaction of the success's other writes (decision 0029). A sign-in replaces
      // whatever session this browser held: no token outlives a new login.
      const started = await verifyCredentials(app, { email, hashPassword }, requestMeta(request), async (uow, userId) => {
        await endSession(uow, previous);
        return createSession(uow, app.config, { userId, deviceId });
      });
      setSessionCookie(reply, app.config, started.token);
      return { otter: started.token };
    },
  });
};
