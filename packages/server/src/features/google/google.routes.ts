import { cookieName, cookieRules } from '@foyer/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { callRoute } from '../../lib/call-route.js';
import { AppError } from '../../lib/errors.js';
import { requestMeta } from '../audit/audit.service.js';
import { setSessionCookie } from '../../lib/cookies.js';
import { readSessionToken } from '../sessions/sessions.http.js';
import { GoogleClient, googleRedirectUri } from './google.client.js';
import { SOCIAL_AUTH_START_PER_IP } from './google.limits.js';
import { SOCIAL_AUTH_STATE_LIFETIME_MS, exchangeGoogle, startSocialAuth } from './google.service.js';
import { clientOf } from '../../lib/rate-limit.js';

/**
 * Decision 0019: the state of this browser's latest start (HttpOnly, SameSite=Strict, ten
 * minutes), for an exchange that leaves `state` out, as spec §7's payload does. A state in the
 * body is used as sent.
 */
const STATE_COOKIE = 'social_auth_state';

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

  const stateCookie = cookieName(STATE_COOKIE, app.config.env);
  // Host-only (no parent Domain): only this service reads it.
  const stateCookieRules = () => cookieRules(app.config.publicHostname, app.config.env, false);

  callRoute(app, 'socialAuth', {
    summary: "Starts Google sign-in for the browser's state; answers the consent page's address",
    // Before any database work: a refused flood writes no state row.
    rateLimits: [{ rule: SOCIAL_AUTH_START_PER_IP, key: clientOf }],
    handler: async (request, reply) => {
      const url = await startSocialAuth(app, requireClient(), request.body.state);
      reply.setCookie(stateCookie, request.body.state, { ...stateCookieRules(), maxAge: SOCIAL_AUTH_STATE_LIFETIME_MS / 1000 });
      return { url };
    },
  });

  callRoute(app, 'googleExchange', {
    summary: 'Exchanges the code Google returned; signs in or up, or answers a transfer token for a native app',
    handler: async (request, reply) => {
      // The state the page sends, else the one this browser's start left (spec §7's payload has none).
      const state = request.body.state ?? request.cookies[stateCookie];
      if (state === undefined) throw new AppError('invalidRequest', { fields: ['state'] });
      if (request.cookies[stateCookie] !== undefined) reply.clearCookie(stateCookie, stateCookieRules());
      const body = { ...request.body, state };
      const result = await exchangeGoogle(app, requireClient(), body, requestMeta(request), readSessionToken(request, app));
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
