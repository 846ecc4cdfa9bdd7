import type { FastifyServerOptions } from 'fastify';
import type { Config } from '../config.js';

/** Path segments that are followed by a secret token in links (spec §2, §7). */
const TOKEN_PARENTS = new Set(['fields', 'reset-password', 'verify-email', 'verify-new-email', 'setup-account', 'ssol']);

/** Long base64url/hex runs with digits or mixed case look like tokens, whatever precedes them. */
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
}

/**
 * Structured JSON logs (pino). Request lines carry method, redacted URL and ids only: no
 * headers, no bodies, so passwords, session tokens and cookies never reach a log; the redact
 * list is a second lock should a header ever be logged.
 */
export function loggerOptions(config: Config): FastifyServerOptions['logger'] {
  return {
    level: config.logLevel,
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
        return { method: request.method, url: redactUrl(request.url), id: request.id, ip: request.ip, host: request.host };
      },
    },
  };
}
