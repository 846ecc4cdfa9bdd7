import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { callRoute } from '../../lib/call-route.js';
import { AppError } from '../../lib/errors.js';
import { requestMeta } from '../audit/audit.service.js';
import { setSessionCookie } from '../../lib/cookies.js';
import { readSessionToken } from '../sessions/sessions.http.js';
import { GoogleClient, googleRedirectUri } from './google.client.js';
import { exchangeGoogle, startSocialAuth } from './google.service.js';

/**
 * Spec §7 `account/socialAuth` and the Google code exchange (decision 0019). Without a configured
 * client both answer 404 `notFound`, and the page does not offer Google (runtime config).
 */
export const googleRoutes: FastifyPluginAsyncZod = async (app) => {
  const { google: settings } = app.config;
  const client =
    settings?.kind === 'client'
      ? new GoogleClient(
          {
            issuer: settings.issuer,
            clientId: settings.clientId,
            clientSecret: settings.clientSecret,
            redirectUri: googleRedirectUri(app.config.publicUrl),
            // config.ts refuses a plain-http issuer where it is deployed.
            allowHttp: settings.issuer.startsWith('http:'),
            requestTimeoutMs: app.config.http.requestTimeoutMs,
          },
          app.log,
          () => app.clock.now(),
        )
      : undefined;
  const requireClient = (): GoogleClient => {
    if (client === undefined) throw new AppError('notFound');
    return client;
  };

  callRoute(app, 'socialAuth', {
    summary: "Starts Google sign-in for the browser's state; answers the consent page's address",
    handler: async (request) => ({ url: await startSocialAuth(app, requireClient(), request.body.state) }),
  });

  callRoute(app, 'googleExchange', {
    summary: 'Exchanges the code Google returned; signs in or up, or answers a transfer token for a native app',
    handler: async (request, reply) => {
      const result = await exchangeGoogle(app, requireClient(), request.body, requestMeta(request), readSessionToken(request, app));
      if (result.kind === 'transfer') {
        // No session in this browser: the app turns the token into its own (spec §3). `otter` is
        // required by the answer's shape and stays empty.
        return { wasSignUp: result.wasSignUp, otter: '', transferToken: result.transferToken, wasClient: true };
      }
      setSessionCookie(reply, app.config, result.started.token);
      return { wasSignUp: result.wasSignUp, otter: result.started.token, wasClient: false };
    },
  });
};
