import { ErrorBody, SSO_PATHS, normalizeEmail } from '@foyer/contract';
import { errorCodes, type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors, type FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { callRoute } from '../../lib/call-route.js';
import { contentCodingRefusal } from '../../lib/json-body.js';
import { AppError, isAppError } from '../../lib/errors.js';
import { READ_ERRORS } from '../../lib/http-schemas.js';
import { requestMeta } from '../audit/audit.service.js';
import { SamlThreads } from './saml.thread.js';
import { SSO_ANSWER_PER_IP, SSO_START_PER_EMAIL, SSO_START_PER_IP } from './sso.limits.js';
import { SsoOidcClients } from './sso.oidc.js';
import { findConnectionById } from './sso.repo.js';
import { consumeOidcCallback, consumeSamlResponse } from './sso.responses.js';
import { browserBinding } from './sso.binding.js';
import { SsoFailure } from './sso.failure.js';
import { SSO_REQUEST_LIFETIME_MS, failureLanding, startSso } from './sso.service.js';
import { ssoUrls } from './sso.urls.js';
import { clientOf } from '../../lib/rate-limit.js';

const ConnectionParams = z.object({ connectionId: z.string().min(1).max(64) });
/**
 * The assertion consumer takes a larger form than other routes, so that an oversized response is
 * refused by the consumer (1002 on the landing page, audited) rather than by the framework.
 */
const ACS_BODY_LIMIT_BYTES = 256 * 1024;
/** The HTTP-POST binding's form: SAMLResponse and RelayState (SAML Bindings §3.5.4). */
const AcsBody = z
  .object({ SAMLResponse: z.string().max(ACS_BODY_LIMIT_BYTES).optional(), RelayState: z.string().max(ACS_BODY_LIMIT_BYTES).optional() })
  .loose();
const CallbackQuery = z
  .object({ code: z.string().max(4096).optional(), state: z.string().max(512).optional(), error: z.string().max(512).optional() })
  .loose();
const Redirect = z.undefined().describe('See Other: the browser goes to /sso-landing with a transfer token or a code');

/** A connection id as this service makes them, else none: what the audit row may name. */
const CONNECTION_ID = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * What the framework refuses before the handler runs (a form or query its schema refuses:
 * repeated fields, a field too long; a content type other than a form): a refusal of what the
 * provider sent like any other (decision 0022), so the browser lands on 1002 and the refusal is
 * audited, not left on a JSON answer. A body too large (413) and an outage (503) keep theirs.
 */
function landOnMalformed(app: FastifyInstance, what: string) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void => {
    const status = error.statusCode ?? 500;
    const malformed = hasZodFastifySchemaValidationErrors(error) || (!isAppError(error) && status >= 400 && status < 500 && status !== 413);
    if (!malformed) {
      app.errorHandler(error, request, reply);
      return;
    }
    const params = request.params as { connectionId?: unknown };
    const connectionId = typeof params.connectionId === 'string' && CONNECTION_ID.test(params.connectionId) ? params.connectionId : '';
    const failure = new SsoFailure('1002', `${what} the framework refused (${status}): ${error.message.slice(0, 120)}`);
    failureLanding(app, failure, { connectionId, meta: requestMeta(request) }).then(
      (target) => void reply.redirect(target, 303),
      // The audit row could not be written (an outage): answered as any such failure is.
      (cause: unknown) => app.errorHandler(cause as FastifyError, request, reply),
    );
  };
}

/**
 * Company single sign-on (decision 0022): spec §7's SSO start call, and, under the separate
 * ssoRedirectURL base (`/sso`), what identity providers reach: each SAML connection's metadata
 * and assertion consumer, and each OIDC connection's callback. Every answer of a provider ends on
 * `/sso-landing`.
 */
export const ssoRoutes: FastifyPluginAsyncZod = async (app) => {
  const oidc = new SsoOidcClients(app.config, app.log, app.clock);
  const saml = new SamlThreads();
  app.addHook('onClose', async () => saml.close());

  callRoute(app, 'ssoStart', {
    summary: "Starts company SSO for an email's organisation; answers the identity provider's address",
    // Before any database work: a refused flood writes no request row.
    rateLimits: [
      { rule: SSO_START_PER_IP, key: clientOf },
      { rule: SSO_START_PER_EMAIL, key: (request) => normalizeEmail(request.body.email) },
    ],
    handler: async (request, reply) => {
      const binding = browserBinding(request, app.config);
      const url = await startSso(app, { oidc, saml }, request.body, requestMeta(request), binding.hash);
      binding.keep(reply, SSO_REQUEST_LIFETIME_MS);
      return { url };
    },
  });

  // The HTTP-POST binding sends a form. Parsed in this plugin only (Fastify scopes a parser to the
  // plugin that adds it), and only for what a provider's page posts (the routes exempt from the
  // XSRF check for that reason): the start call is a call like any other, JSON only (decision 0017).
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (request, body, done) => {
    if (request.routeOptions.config.xsrfExempt !== true) {
      done(new errorCodes.FST_ERR_CTP_INVALID_MEDIA_TYPE('application/x-www-form-urlencoded'), undefined);
      return;
    }
    const coded = contentCodingRefusal(request);
    if (coded !== undefined) {
      done(coded, undefined);
      return;
    }
    done(null, Object.fromEntries(new URLSearchParams(typeof body === 'string' ? body : body.toString('utf8'))));
  });

  app.route({
    method: 'GET',
    url: SSO_PATHS.samlMetadata,
    schema: {
      tags: ['sso'],
      summary: "A SAML connection's service-provider metadata, for the identity provider's administrator",
      params: ConnectionParams,
      response: {
        200: { description: "The service provider's SAML metadata", content: { 'application/samlmetadata+xml': { schema: z.string() } } },
        400: ErrorBody,
        404: ErrorBody,
        ...READ_ERRORS,
      },
    },
    handler: async (request, reply) => {
      const connection = await findConnectionById(app.db, request.params.connectionId);
      if (connection?.kind !== 'saml') throw new AppError('notFound');
      const urls = ssoUrls(app.config, connection.id);
      reply.type('application/samlmetadata+xml; charset=utf-8');
      return saml.serviceProviderMetadata({ entityId: urls.entityId, acsUrl: urls.acs });
    },
  });

  /** Before the body is read or anything is looked up (SSO_ANSWER_PER_IP); a refusal is 429 with Retry-After. */
  const limitAnswers = async (request: FastifyRequest, reply: FastifyReply) =>
    app.rateLimiter.enforce(request, reply, [[SSO_ANSWER_PER_IP, clientOf(request)]]);

  app.route({
    method: 'POST',
    url: SSO_PATHS.samlAcs,
    onRequest: limitAnswers,
    // The identity provider's page posts here cross-site without our script: no XSRF header can
    // exist. The response carries its own proof (the signature and InResponseTo), checked in full.
    config: { xsrfExempt: true },
    bodyLimit: ACS_BODY_LIMIT_BYTES,
    errorHandler: landOnMalformed(app, 'an assertion consumer request'),
    schema: {
      tags: ['sso'],
      summary: 'The SAML assertion consumer (HTTP-POST binding)',
      consumes: ['application/x-www-form-urlencoded'],
      params: ConnectionParams,
      body: AcsBody,
      // What is refused before the handler lands on /sso-landing too (landOnMalformed), except a
      // connection id the router refuses, a form too large, and an outage.
      response: { 303: Redirect, 400: ErrorBody, 413: ErrorBody, 429: ErrorBody, ...READ_ERRORS },
    },
    handler: async (request, reply) => {
      const { SAMLResponse, RelayState } = request.body;
      const target = await consumeSamlResponse(
        app,
        saml,
        { connectionId: request.params.connectionId, samlResponse: SAMLResponse, relayState: RelayState },
        requestMeta(request),
      );
      return reply.redirect(target, 303);
    },
  });

  app.route({
    method: 'GET',
    url: SSO_PATHS.oidcCallback,
    onRequest: limitAnswers,
    errorHandler: landOnMalformed(app, 'a callback'),
    schema: {
      tags: ['sso'],
      summary: 'The OpenID Connect redirect URI of a connection',
      params: ConnectionParams,
      querystring: CallbackQuery,
      response: { 303: Redirect, 400: ErrorBody, 429: ErrorBody, ...READ_ERRORS },
    },
    handler: async (request, reply) => {
      const { code, state, error } = request.query;
      const target = await consumeOidcCallback(app, oidc, { connectionId: request.params.connectionId, code, state, error }, requestMeta(request));
      return reply.redirect(target, 303);
    },
  });

  // Foyer asks for the default response mode, the query string. A provider that posts its answer
  // anyway (response_mode=form_post) has it refused as any malformed answer is: 1002 on the
  // landing page, audited, not the XSRF check's JSON in the person's browser. The state is not
  // spent, and nothing in the form is read.
  app.route({
    method: 'POST',
    url: SSO_PATHS.oidcCallback,
    onRequest: limitAnswers,
    // Posted cross-site by the provider's page, as the assertion consumer is; nothing is done with it.
    config: { xsrfExempt: true },
    errorHandler: landOnMalformed(app, 'a posted callback'),
    schema: {
      tags: ['sso'],
      summary: 'An OpenID Connect answer posted instead of redirected (form_post): refused, landing on 1002',
      params: ConnectionParams,
      response: { 303: Redirect, 400: ErrorBody, 413: ErrorBody, 429: ErrorBody, ...READ_ERRORS },
    },
    handler: async (request, reply) => {
      const { connectionId } = request.params;
      const failure = new SsoFailure('1002', 'the provider posted its answer (form_post), which this client does not ask for');
      const target = await failureLanding(app, failure, {
        connectionId: CONNECTION_ID.test(connectionId) ? connectionId : '',
        meta: requestMeta(request),
      });
      return reply.redirect(target, 303);
    },
  });
};
