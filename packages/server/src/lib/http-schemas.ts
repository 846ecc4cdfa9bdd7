import { ERROR_STATUS, ErrorBody, type ErrorCode } from '@foyer/contract';
import * as z from 'zod/mini';

/**
 * Error statuses a route outside the contract's calls (health, localisation, the dev mailbox)
 * may answer besides its own, declared so the OpenAPI document is complete and each answer is
 * serialized through the contract's ErrorBody. Calls declare theirs through `errorResponses`.
 */
export const READ_ERRORS = { 500: ErrorBody, 503: ErrorBody } as const;

/**
 * State-changing routes: bad input (400), XSRF (403), body too large (413), content type (415).
 * Both kinds answer 503 while the database is unavailable (decision 0011).
 */
export const WRITE_ERRORS = { 400: ErrorBody, 403: ErrorBody, 413: ErrorBody, 415: ErrorBody, 500: ErrorBody, 503: ErrorBody } as const;

/** What Fastify answers for a body it cannot take: too large, or of another content type. */
const BODY_STATUSES = [413, 415] as const;

function errorBodyOf(codes: readonly [ErrorCode, ...ErrorCode[]]) {
  const shape = {
    errorMessage: z.enum(codes),
    // `email` goes with ssoRequired, so only a status that carries it has the field.
    ...(codes.includes('ssoRequired') ? { email: z.optional(z.string()) } : {}),
  };
  // `fields` names what failed validation, so only a status that carries invalidRequest has it.
  const schema = codes.includes('invalidRequest') ? z.object({ ...shape, fields: z.optional(z.array(z.string())) }) : z.object(shape);
  return schema.check(z.describe(codes.join(' | ')));
}

/**
 * A call's error answers (decision 0017), one schema per status: `{ errorMessage }` with exactly
 * the codes the call declares for that status, so the OpenAPI document says which codes each
 * status carries and the serializer refuses any other. A call with a body may also get Fastify's
 * 413 and 415, both `invalidRequest` (lib/error-handler.ts).
 */
export function errorResponses(codes: readonly ErrorCode[], hasBody: boolean): Record<number, z.ZodMiniType> {
  const byStatus = new Map<number, [ErrorCode, ...ErrorCode[]]>();
  for (const code of codes) {
    const status = ERROR_STATUS[code];
    const known = byStatus.get(status);
    if (known === undefined) byStatus.set(status, [code]);
    else known.push(code);
  }
  if (hasBody) for (const status of BODY_STATUSES) byStatus.set(status, ['invalidRequest']);
  return Object.fromEntries([...byStatus].sort(([a], [b]) => a - b).map(([status, list]) => [status, errorBodyOf(list)]));
}
