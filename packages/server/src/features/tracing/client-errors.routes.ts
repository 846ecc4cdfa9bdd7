import { SpanStatusCode, context, trace } from '@opentelemetry/api';
import { scrubClientErrorText } from '@foyer/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { callRoute } from '../../lib/call-route.js';
import type { RateRule } from '../../lib/rate-limit.js';
import { clientOf } from '../../lib/rate-limit.js';

/**
 * Per client address: a page sends at most 5 reports (contract CLIENT_ERROR_MAX_PER_PAGE), so
 * this lets a dozen pages a few minutes apart through and stops a script filling the traces.
 */
export const CLIENT_ERRORS_PER_IP: RateRule = { name: 'clientErrors:ip', limit: 60, windowMs: 15 * 60_000 };

/**
 * Spec §1's error-reporting service, fed by the page (decision 0026): an uncaught error of the
 * page arrives here, is scrubbed again (the page already did, but a report is whatever its
 * sender chose to send), and becomes an `exception` event of this request's span, exported with
 * the traces, and a log line.
 */
export const clientErrorsRoutes: FastifyPluginAsyncZod = async (app) => {
  callRoute(app, 'clientErrors', {
    summary: 'Records an uncaught error of the web page, without personal data, for the traces and the log',
    rateLimits: [{ rule: CLIENT_ERRORS_PER_IP, key: clientOf }],
    handler: async (request) => {
      const { message, stack, route, release } = request.body;
      const report = {
        message: scrubClientErrorText(message),
        ...(stack === undefined ? {} : { stack: scrubClientErrorText(stack) }),
        route,
        ...(release === undefined ? {} : { release: scrubClientErrorText(release) }),
      };
      const span = trace.getSpan(context.active());
      if (span !== undefined) {
        span.addEvent('exception', {
          'exception.type': 'ClientError',
          'exception.message': report.message,
          ...(report.stack === undefined ? {} : { 'exception.stacktrace': report.stack }),
          'foyer.client.route': report.route,
          ...(report.release === undefined ? {} : { 'foyer.client.release': report.release }),
        });
        // The report succeeded; the error it tells of is the page's, so the span is marked failed.
        span.setStatus({ code: SpanStatusCode.ERROR, message: 'client error reported' });
      }
      request.log.warn({ clientError: report }, 'the web page reported an uncaught error');
      return {};
    },
  });
};
