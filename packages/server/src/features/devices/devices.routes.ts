import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { callRoute } from '../../lib/call-route.js';
import { requestMeta } from '../audit/audit.service.js';
import { presentedBinding } from '../sso/sso.binding.js';
import { exchangeOtterToken } from './devices.service.js';

/**
 * Spec §7 `exchange/otterToken` (decision 0021). The device token is answered in the body only,
 * never set as a cookie: it is the native client's own credential, sent as `Authorization: Bearer`
 * with `X-DeviceId`, and revoked with `account/signout` like any session.
 */
export const devicesRoutes: FastifyPluginAsyncZod = async (app) => {
  callRoute(app, 'exchangeOtterToken', {
    summary: 'Turns a one-time sign-in token into a long-lived device token for the same device, once',
    handler: async (request) => ({
      deviceToken: await exchangeOtterToken(app, request.body, requestMeta(request), presentedBinding(request, app.config)),
    }),
  });
};
