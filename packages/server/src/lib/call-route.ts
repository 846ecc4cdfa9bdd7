import { API_BASE, CALLS, DEVICE_ID_HEADER, callErrors, type CallName, type ErrorCode } from '@foyer/contract';
import type {
  ContextConfigDefault,
  FastifyBaseLogger,
  FastifyError,
  FastifyInstance,
  FastifyRequest,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
  RouteGenericInterface,
  RouteHandlerMethod,
} from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import * as z from 'zod/mini';
import { AppError, isAppError } from './errors.js';
import { errorResponses } from './http-schemas.js';
import type { RateRule } from './rate-limit.js';
import { XSRF_SECURITY } from './openapi.js';

/** The Fastify instance a routes plugin gets with the zod type provider. */
export type ZodApp = FastifyInstance<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, FastifyBaseLogger, ZodTypeProvider>;

type Call<N extends CallName> = (typeof CALLS)[N];
type Part<N extends CallName, K extends 'body' | 'params'> = Call<N> extends { [P in K]: infer S extends z.ZodMiniType } ? { [P in K]: S } : unknown;

/**
 * The schema Fastify gets for a call: what types the handler's request and answer. A part the
 * call does not have is absent, not undefined (Fastify warns about a declared but empty one).
 */
export type CallSchema<N extends CallName> = Part<N, 'body'> &
  Part<N, 'params'> & {
    response: { 200: Call<N>['response'] } & Record<number, z.ZodMiniType>;
  };

export type CallRequest<N extends CallName> = FastifyRequest<
  RouteGenericInterface,
  RawServerDefault,
  RawRequestDefaultExpression,
  CallSchema<N>,
  ZodTypeProvider
>;

export type CallHandler<N extends CallName> = RouteHandlerMethod<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  RouteGenericInterface,
  ContextConfigDefault,
  CallSchema<N>,
  ZodTypeProvider
>;

/** One rate rule of a call and what it counts a request by (a client address, a normalised email). */
export interface CallRateLimit<N extends CallName> {
  rule: RateRule;
  key: (request: CallRequest<N>) => string;
}

export interface CallRouteOptions<N extends CallName> {
  /** One line for the OpenAPI document: what the call does. */
  summary: string;
  /** Counted before the handler, after validation (so keys may come from the body); all are counted. */
  rateLimits?: ReadonlyArray<CallRateLimit<N>>;
  handler: CallHandler<N>;
}

/** `X-DeviceId` (spec §7), declared for the document; its value is checked where it is used. */
const DeviceIdHeaders = z.looseObject({
  [DEVICE_ID_HEADER.toLowerCase()]: z.optional(z.string().check(z.describe('The device id this browser or app generated (spec §7)'))),
});

/** The tag of a call in the document: the first segment of its path (`account`, `community`, `exchange`). */
function tagOf(path: string): string {
  return path.split('/')[1] ?? 'account';
}

/**
 * Turns a contract call into a Fastify route (decision 0017): method, URL, body or path
 * parameters, a response schema for 200 and for every status its declared codes travel with, the
 * call's name as `operationId`, the `X-DeviceId` header where the call carries one, and the XSRF
 * requirement of a state-changing call (lib/xsrf.ts) as the document's security. The handler
 * stays in the feature's routes file.
 *
 * An AppError whose code the call does not declare is a bug (a service grew a refusal the
 * contract does not know, so the web cannot explain it): it is logged at error and answered 500
 * `unexpectedError`, and tests see it as such.
 */
export function callRoute<N extends CallName>(app: ZodApp, name: N, options: CallRouteOptions<N>): void {
  const call: Call<N> = CALLS[name];
  const declared: ReadonlySet<ErrorCode> = new Set(callErrors(call));
  const hasBody = 'body' in call;
  const limits = options.rateLimits ?? [];
  if (limits.length > 0 && !declared.has('rateLimitExeeded')) {
    throw new Error(`${name} has rate limits but does not declare rateLimitExeeded`);
  }

  const parts = {
    ...('body' in call ? { body: call.body } : {}),
    ...('params' in call ? { params: call.params } : {}),
    response: { ...errorResponses([...declared], hasBody), 200: call.response },
  };
  const schema = {
    operationId: name,
    tags: [tagOf(call.path)],
    summary: options.summary,
    ...('deviceIdHeader' in call ? { headers: DeviceIdHeaders } : {}),
    ...(call.method === 'GET' ? {} : { security: XSRF_SECURITY }),
    // TypeScript cannot follow `'body' in call` through the generic N; `parts` holds exactly
    // CALLS[name]'s body and params, which is what CallSchema<N> says.
    ...(parts as CallSchema<N>),
  };

  app.route<RouteGenericInterface, ContextConfigDefault, CallSchema<N>>({
    method: call.method,
    url: API_BASE + call.path,
    schema,
    ...(limits.length === 0
      ? {}
      : {
          preHandler: async (request, reply) => {
            await app.rateLimiter.enforce(
              request,
              reply,
              limits.map(({ rule, key }) => [rule, key(request)] as const),
            );
          },
        }),
    errorHandler(error: FastifyError, request, reply) {
      if (isAppError(error) && !declared.has(error.code)) {
        request.log.error({ err: error, call: name, code: error.code }, 'error code not declared by the call');
        return app.errorHandler(new AppError('unexpectedError', { cause: error }), request, reply);
      }
      return app.errorHandler(error, request, reply);
    },
    handler: options.handler,
  });
}
