import { ERROR_STATUS, type ErrorBody, type ErrorCode } from '@foyer/contract';
import type { FastifyError, FastifyInstance } from 'fastify';
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from 'fastify-type-provider-zod';
import { databaseReason, isDatabaseUnavailable } from '../db/errors.js';
import { isAppError } from './errors.js';

/**
 * Decision 0011: while the database is unreachable, frozen or locked, calls are refused with 503
 * and this hint; the pool reconnects on its own, so the service is back within seconds of it.
 */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

/** `/email`, `/user/0/name` → `email`, `user.0.name`; the body itself → `body`. */
function fieldName(instancePath: string, context: string | undefined): string {
  const path = instancePath.replace(/^\//, '').replace(/\//g, '.');
  return path === '' ? (context ?? 'body') : path;
}

function answer(code: ErrorCode, fields?: string[]): { status: number; body: ErrorBody } {
  return { status: ERROR_STATUS[code], body: fields === undefined ? { errorMessage: code } : { errorMessage: code, fields } };
}

/**
 * The one error handler (STYLE.md): codes, never prose. Bad input of any kind (schema, JSON,
 * content type, size) is a 4xx; a database outage is a 503; anything unexpected is a bare 500
 * whose detail stays in the log.
 */
export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    let result: { status: number; body: ErrorBody };
    if (isAppError(error)) {
      result = answer(error.code, error.fields);
      if (error.email !== undefined) result.body.email = error.email;
      // A dependency that did not answer (an identity provider, the mail relay): retried as an outage is.
      if (error.code === 'unavailable') void reply.header('retry-after', String(UNAVAILABLE_RETRY_AFTER_SECONDS));
    } else if (hasZodFastifySchemaValidationErrors(error)) {
      const fields = [...new Set(error.validation.map((issue) => fieldName(issue.instancePath, error.validationContext)))];
      result = answer('invalidRequest', fields);
    } else if (isResponseSerializationError(error)) {
      // An answer that does not fit its schema is our bug; never send the unchecked data.
      request.log.error({ err: error, issues: error.cause.issues }, 'response does not match its schema');
      result = answer('unexpectedError');
    } else if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
      // Fastify's own client errors: malformed JSON, unsupported content type, body too large.
      const code: ErrorCode = error.statusCode === 404 ? 'notFound' : error.statusCode === 429 ? 'rateLimitExeeded' : 'invalidRequest';
      result = { status: error.statusCode, body: { errorMessage: code } };
    } else if (isDatabaseUnavailable(error)) {
      // A dependency's outage, not our bug: a 503 the client may retry, logged below error level
      // so an outage does not flood the error log with one stack per request.
      request.log.warn({ reason: databaseReason(error) }, 'database unavailable');
      void reply.header('retry-after', String(UNAVAILABLE_RETRY_AFTER_SECONDS));
      result = answer('unavailable');
    } else {
      request.log.error({ err: error }, 'unexpected error');
      result = answer('unexpectedError');
    }
    return reply.code(result.status).send(result.body);
  });
}
