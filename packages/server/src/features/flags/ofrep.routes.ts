import { OFREP_PATHS, isFlagName } from '@foyer/contract';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { EvaluatedFlag } from './flag-service.js';

/**
 * The OpenFeature Remote Evaluation Protocol, v1 (decision 0024), served for the page's flag
 * refresher and for any OFREP client: the bulk evaluation with its ETag, and the single one. The
 * answers are the OFREP shapes, not the account calls' `{ errorMessage }`, so any OFREP provider
 * reads them. The context a client sends is read as OFREP asks (an object) and otherwise not
 * used: every visitor gets the same values (decision 0024), evaluated with the service's own
 * context.
 */

const Context = z.record(z.string(), z.unknown()).describe('Evaluation context; accepted and not used: the values are the same for everyone');
const EvaluationRequest = z.object({ context: Context.optional() }).describe('OFREP evaluation request');

const Value = z.union([z.boolean(), z.number()]);
const EvaluationSuccess = z
  .object({ key: z.string(), value: Value, reason: z.string(), variant: z.string().optional() })
  .describe('OFREP evaluation success');
const BulkSuccess = z.object({ flags: z.array(EvaluationSuccess) }).describe('OFREP bulk evaluation success');
const BulkFailure = z
  .object({ errorCode: z.enum(['PARSE_ERROR', 'INVALID_CONTEXT']), errorDetails: z.string() })
  .describe('OFREP bulk evaluation failure');
const SingleFailure = z
  .object({ key: z.string(), errorCode: z.enum(['PARSE_ERROR', 'INVALID_CONTEXT']), errorDetails: z.string() })
  .describe('OFREP evaluation failure');
const FlagNotFound = z.object({ key: z.string(), errorCode: z.literal('FLAG_NOT_FOUND'), errorDetails: z.string() }).describe('OFREP flag not found');
const GeneralError = z.object({ errorDetails: z.string() }).describe('OFREP general error');
const KeyParams = z.object({ key: z.string().max(200) });

function toWire(flag: EvaluatedFlag) {
  return { key: flag.key, value: flag.value, reason: flag.reason, ...(flag.variant === undefined ? {} : { variant: flag.variant }) };
}

/** `If-None-Match` as RFC 9110 reads it: `*`, or a list of tags, weak ones compared weakly. */
export function etagMatches(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  return header.split(',').some((candidate) => {
    const tag = candidate.trim().replace(/^W\//, '');
    return tag === '*' || tag === etag;
  });
}

/**
 * Client errors (malformed JSON, a context that is not an object, a body too large, another
 * content type) in OFREP's shape; anything else in OFREP's general error, its detail logged.
 */
function ofrepErrorHandler(single: boolean) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void => {
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      const invalidContext = hasZodFastifySchemaValidationErrors(error);
      const errorCode = invalidContext ? 'INVALID_CONTEXT' : 'PARSE_ERROR';
      const errorDetails = invalidContext ? 'context must be an object' : 'the body must be a JSON object';
      const params = request.params as { key?: unknown };
      const key = typeof params.key === 'string' ? params.key : '';
      void reply.code(400).send(single ? { key, errorCode, errorDetails } : { errorCode, errorDetails });
      return;
    }
    request.log.error({ err: error }, 'ofrep: unexpected error');
    void reply.code(500).send({ errorDetails: 'internal error' });
  };
}

/**
 * The answer, in OFREP's shape, to an OFREP request the router refuses before any route runs (a
 * path it cannot take, such as a key over its length limit): a single evaluation's key names no
 * flag (404 FLAG_NOT_FOUND); anything else on the bulk path is a request that could not be read.
 * Undefined for any other path.
 */
export function ofrepRouterRefusal(url: string): { status: 400 | 404; body: object } | undefined {
  const path = url.split('?')[0] ?? '';
  const prefix = `${OFREP_PATHS.bulk}/`;
  if (path.startsWith(prefix)) {
    const raw = path.slice(prefix.length);
    let key = '';
    try {
      key = decodeURIComponent(raw);
    } catch {
      key = '';
    }
    return { status: 404, body: { key, errorCode: 'FLAG_NOT_FOUND', errorDetails: 'no such flag' } };
  }
  if (path === OFREP_PATHS.bulk) return { status: 400, body: { errorCode: 'PARSE_ERROR', errorDetails: 'the request could not be read' } };
  return undefined;
}

export const ofrepRoutes: FastifyPluginAsyncZod = async (app) => {
  app.addHook('onSend', async (_request, reply) => {
    // Values can change at any moment upstream: clients revalidate with the ETag instead.
    void reply.header('cache-control', 'no-store');
  });

  app.route({
    method: 'POST',
    url: OFREP_PATHS.bulk,
    // Reads only, and answers what every page already carries: no XSRF token to ask for (an
    // OFREP client sends none); another site cannot read the answer (no CORS).
    config: { xsrfExempt: true },
    schema: {
      tags: ['flags'],
      summary: 'OFREP bulk evaluation: every flag, with an ETag',
      headers: z.looseObject({ 'if-none-match': z.string().optional() }),
      body: EvaluationRequest.nullish(),
      response: { 200: BulkSuccess, 304: z.undefined().describe('Not modified (ETag matched)'), 400: BulkFailure, 500: GeneralError },
    },
    errorHandler: ofrepErrorHandler(false),
    handler: async (request, reply) => {
      const set = await app.flags.current();
      void reply.header('etag', set.etag);
      if (etagMatches(request.headers['if-none-match'], set.etag)) return reply.code(304).send();
      return { flags: set.evaluated.map(toWire) };
    },
  });

  app.route({
    method: 'POST',
    url: OFREP_PATHS.single,
    config: { xsrfExempt: true },
    schema: {
      tags: ['flags'],
      summary: 'OFREP single evaluation of one flag',
      params: KeyParams,
      body: EvaluationRequest.nullish(),
      response: { 200: EvaluationSuccess, 400: SingleFailure, 404: FlagNotFound, 500: GeneralError },
    },
    errorHandler: ofrepErrorHandler(true),
    handler: async (request, reply) => {
      const { key } = request.params;
      // Only the spec's flags: a key is never passed on to the flag service, which would make
      // this an open door to every flag it holds.
      const flag = isFlagName(key) ? (await app.flags.current()).evaluated.find((entry) => entry.key === key) : undefined;
      if (flag === undefined) return reply.code(404).send({ key, errorCode: 'FLAG_NOT_FOUND' as const, errorDetails: 'no such flag' });
      return toWire(flag);
    },
  });
};
