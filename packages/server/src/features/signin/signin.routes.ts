import { normalizeEmail } from '@foyer/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { callRoute } from '../../lib/call-route.js';
import { requestMeta } from '../audit/audit.service.js';
import { setSessionCookie } from '../../lib/cookies.js';
import { readSessionToken } from '../sessions/sessions.http.js';
import { SIGNIN_PER_IP, signinPerEmail } from './signin.limits.js';
import { signInWithPassword } from './signin.service.js';
import { clientOf } from '../../lib/rate-limit.js';

export const signinRoutes: FastifyPluginAsyncZod = async (app) => {
  callRoute(app, 'signin', {
    summary: 'Signs in with email and password; starts a session bound to the device id',
    // Before any password work, so a refused flood costs no argon2 (decision 0010).
    rateLimits: [
      { rule: SIGNIN_PER_IP, key: clientOf },
      { rule: signinPerEmail(app.config.lockoutThreshold), key: (request) => normalizeEmail(request.body.email) },
    ],
    handler: async (request, reply) => {
      const { email, hashPassword, deviceId } = request.body;
      // A sign-in replaces whatever session this browser held, in the same writes as the new one.
      const started = await signInWithPassword(app, { email, hashPassword }, requestMeta(request), {
        deviceId,
        previousToken: readSessionToken(request, app),
      });
      setSessionCookie(reply, app.config, started.token);
      return { otter: started.token };
    },
  });
};
