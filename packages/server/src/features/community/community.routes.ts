import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { callRoute } from '../../lib/call-route.js';
import { requestMeta } from '../audit/audit.service.js';
import { requireSession } from '../sessions/sessions.http.js';
import { DISCOURSE_SSO_PER_IP } from './community.limits.js';
import { agreeToTerms, answerDiscourseSso } from './community.service.js';
import { registerLocalTermsPage } from './local-terms.js';
import { clientOf } from '../../lib/rate-limit.js';

/**
 * Spec §7 `community/discourseSso` and `community/termsAgreed` (decision 0021): Foyer as the
 * forum's DiscourseConnect provider. The credentials are the session cookie (the web app) or
 * `Authorization: Bearer` with a session or device token (native clients), with `X-DeviceId`.
 */
export const communityRoutes: FastifyPluginAsyncZod = async (app) => {
  callRoute(app, 'discourseSso', {
    summary: 'Answers a DiscourseConnect request of the community forum for the signed-in account',
    rateLimits: [{ rule: DISCOURSE_SSO_PER_IP, key: clientOf }],
    handler: async (request) => answerDiscourseSso(app, { ...request.body, session: () => requireSession(app, request) }, requestMeta(request)),
  });

  callRoute(app, 'termsAgreed', {
    summary: 'Records that the signed-in account accepted the current community terms',
    handler: async (request) => {
      await agreeToTerms(app, () => requireSession(app, request), requestMeta(request));
      return {};
    },
  });

  // Decision 0021: only `local` serves its own terms page; elsewhere the forum's page is framed.
  if (app.config.env === 'local') registerLocalTermsPage(app);
};
