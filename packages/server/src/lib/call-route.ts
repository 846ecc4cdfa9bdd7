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
import { XSRF_SECURITY, sessionSecurity } from './openapi.js';

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
  [DEVICE_ID_HEADER.toLowerCase()]: z.optional(
    z.string().check(z.describe('The device id this browser or app generated (spec §7); a session is found only with the device id it was issued to')),
  ),
});

/** What a body field is, for what a client may send in its place (`lenientBody`). */
type FieldKind = 'text' | 'flag' | 'choice' | 'other';

interface SchemaDef {
  type: string;
  shape?: Record<string, { _zod: { def: SchemaDef } }>;
  innerType?: { _zod: { def: SchemaDef } };
}

/**
 * The kind of each optional top-level field of a call's body schema (zod's definitions, read once
 * at boot). A required field (an email, a token, the password digest) takes exactly its type.
 */
function fieldKinds(body: z.ZodMiniType): ReadonlyMap<string, FieldKind> {
  const kinds = new Map<string, FieldKind>();
  const shape = (body._zod.def as SchemaDef).shape ?? {};
  for (const [name, field] of Object.entries(shape)) {
    let def = field._zod.def;
    const optional = def.type === 'optional';
    if (optional && def.innerType !== undefined) def = def.innerType._zod.def;
    const kind = !optional ? 'other' : def.type === 'string' ? 'text' : def.type === 'boolean' ? 'flag' : def.type === 'enum' ? 'choice' : 'other';
    kinds.set(name, kind);
  }
  return kinds;
}

/**
 * What clients written elsewhere send for a field, taken as the contract means it (decision 0017):
 * no body at all as an empty object (spec §7's `termsAgreed` has an "empty body"); `null` as a
 * field left out (a value read from storage that was never set); for an optional field, a number
 * where text is asked (a phone number or a period id kept as a number), the text `true` or `false`
 * where a flag is asked (a query parameter or a stored value passed on as it came), an empty
 * string for a choice (no plan chosen). Anything else is left for the schema to judge.
 */
function lenientBody(body: unknown, kinds: ReadonlyMap<string, FieldKind>): unknown {
  if (body === undefined) return {};
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return body;
  const lenient: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(body)) {
    if (value === null) continue;
    const kind = kinds.get(name);
    if (kind === 'text' && typeof value === 'number' && Number.isFinite(value)) lenient[name] = String(value);
    else if (kind === 'flag' && (value === 'true' || value === 'false')) lenient[name] = value === 'true';
    else if (kind === 'choice' && value === '') continue;
    else lenient[name] = value;
  }
  return lenient;
}

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
    ...(declared.has('notSignedIn') ? { security: sessionSecurity(call.method !== 'GET') } : call.method === 'GET' ? {} : { security: XSRF_SECURITY }),
    // TypeScript cannot follow `'body' in call` through the generic N; `parts` holds exactly
    // CALLS[name]'s body and params, which is what CallSchema<N> says.
    ...(parts as CallSchema<N>),
  };

  const kinds = 'body' in call ? fieldKinds(call.body) : undefined;
  app.route<RouteGenericInterface, ContextConfigDefault, CallSchema<N>>({
    method: call.method,
    url: API_BASE + call.path,
    schema,
    ...(kinds === undefined
      ? {}
      : {
          preValidation: (request, _reply, done) => {
            request.body = lenientBody(request.body, kinds) as typeof request.body;
            done();
          },
        }),
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
