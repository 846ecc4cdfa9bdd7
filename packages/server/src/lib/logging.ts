import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { LogController, type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { CALL_PATHS, ROUTES } from '@foyer/contract';
import type { Config } from '../config.js';
import { clientAddress } from './trust-proxy.js';

/** The parameters of the contract's paths that carry an emailed or handed-over secret. */
const SECRET_PARAMETERS = new Set([':token', ':id', ':transferToken']);

/**
 * Path segments followed by a secret token: taken from every route and call path of the contract
 * (spec §2, §7), so a new link or call that carries a token in its path is redacted without a
 * list here to keep up with (`/reset-password/:token`, `/account/resetPassword/check/:token`, …).
 */
const TOKEN_PARENTS = new Set(
  [...Object.values(ROUTES), ...Object.values(CALL_PATHS).map((call) => call.path)].flatMap((template) => {
    const segments = template.split('/');
    return segments.flatMap((segment, index) => (index > 0 && SECRET_PARAMETERS.has(segment) ? [segments[index - 1] as string] : []));
  }),
);

/** Long base64url/hex runs with a digit look like tokens, whatever precedes them. */
function looksRandom(segment: string): boolean {
  return segment.length >= 20 && /^[A-Za-z0-9_-]+$/.test(segment) && /\d/.test(segment) && /[A-Za-z]/.test(segment);
}

/**
 * A URL fit for the logs: token-bearing path segments become `[token]` and every query value
 * becomes `[redacted]` (query strings carry sso payloads, codes, transfer tokens).
 */
export function redactUrl(url: string): string {
  const queryAt = url.indexOf('?');
  const path = queryAt === -1 ? url : url.slice(0, queryAt);
  const segments = path.split('/');
  const redacted = segments.map((segment, index) => {
    const parent = index > 0 ? segments[index - 1] : undefined;
    return segment !== '' && ((parent !== undefined && TOKEN_PARENTS.has(parent)) || looksRandom(segment)) ? '[token]' : segment;
  });
  if (queryAt === -1) return redacted.join('/');
  const keys = url
    .slice(queryAt + 1)
    .split('&')
    .filter((pair) => pair !== '')
    .map((pair) => `${pair.split('=')[0] ?? ''}=[redacted]`);
  return `${redacted.join('/')}?${keys.join('&')}`;
}

interface LoggedRequest {
  method: string;
  url: string;
  id: string;
  ip?: string;
  host?: string;
  socket?: { remoteAddress?: string | undefined };
}

/**
 * Structured JSON logs (pino). Request lines carry method, redacted URL and ids only: no
 * headers, no bodies, so passwords, session tokens and cookies never reach a log; the redact
 * list is a second lock should a header ever be logged.
 */
export function loggerOptions(config: Config, stream?: LogStream): FastifyServerOptions['logger'] {
  return {
    level: config.logLevel,
    ...(stream === undefined ? {} : { stream }),
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers.cookie',
        'req.headers["x-xsrf-token"]',
        'res.headers["set-cookie"]',
        'headers.authorization',
        'headers.cookie',
      ],
      censor: '[redacted]',
    },
    serializers: {
      req(request: LoggedRequest) {
        return { method: request.method, url: redactUrl(request.url), id: request.id, ip: clientAddress(request), host: request.host };
      },
    },
  };
}

/** Where log lines go instead of stdout (tests read them). */
export interface LogStream {
  write(line: string): void;
}

/** The header a load balancer or a caller names a request by; echoed on every answer. */
export const REQUEST_ID_HEADER = 'x-request-id';
/** The field every log line of a request carries its id in. */
export const REQUEST_ID_LOG_LABEL = 'requestId';
/**
 * Visible ASCII and at most 128 characters: a UUID, a HAProxy or nginx id, a trace id all fit.
 * Anything else (spaces, control characters, a flood of bytes) could forge log fields or break
 * the echoed header, so it is replaced rather than trusted.
 */
const REQUEST_ID_PATTERN = /^[\x21-\x7e]{1,128}$/;

/** The caller's X-Request-Id when it is acceptable, otherwise a fresh UUID (decision 0018). */
export function requestIdOf(headers: IncomingHttpHeaders): string {
  const incoming = headers[REQUEST_ID_HEADER];
  return typeof incoming === 'string' && REQUEST_ID_PATTERN.test(incoming) ? incoming : randomUUID();
}

/**
 * Fastify options naming each request (decision 0018): the incoming X-Request-Id, checked here
 * because Fastify's own `requestIdHeader` takes any value as it comes; every line logged through
 * `request.log` carries it as `requestId`.
 */
export function requestIdOptions(): Pick<FastifyServerOptions, 'requestIdHeader' | 'genReqId' | 'logController'> {
  return {
    requestIdHeader: false,
    genReqId: (request) => requestIdOf(request.headers),
    logController: new LogController({ requestIdLogLabel: REQUEST_ID_LOG_LABEL }),
  };
}

/** Every answer names its request, so a report of a failure leads to its log lines. */
export function echoRequestId(app: FastifyInstance): void {
  app.addHook('onRequest', (request, reply, done) => {
    void reply.header(REQUEST_ID_HEADER, request.id);
    done();
  });
}
