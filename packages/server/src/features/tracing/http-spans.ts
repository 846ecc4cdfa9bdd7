import { ROOT_CONTEXT, SpanKind, SpanStatusCode, context, propagation, trace, type Context, type Span } from '@opentelemetry/api';
import { clientErrorRoute } from '@foyer/contract';
import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import { errorAttributes, tracer } from './tracing.js';

/** What no route matched and is no page of spec §2 either. */
const UNMATCHED = 'unmatched';

interface Traced {
  span: Span;
  context: Context;
}

/**
 * The route of a request for its span: the matched route's template (`/api/account/
 * resetPassword/check/:token`), a page's template of spec §2 (`/ssol/:transferToken`), or
 * `unmatched`. Never the raw URL: paths carry tokens and query strings carry codes and payloads.
 */
function routeOf(request: FastifyRequest): string {
  const template = request.routeOptions.url;
  if (template !== undefined && !template.includes('*')) return template;
  const page = clientErrorRoute(request.url.split(/[?#]/)[0] ?? '/');
  return page === 'unknown' ? UNMATCHED : page;
}

/**
 * A server span for every request (decision 0026), made from Fastify's hooks rather than by
 * patching `http`: `app.inject` is traced like the network, and the attributes are only these:
 * method, route template, status, and for a failure its type or code. A caller's `traceparent`
 * is honoured, so a balancer's or the browser's trace continues here. Registered before the
 * features: the `onRoute` hook wraps each handler so that the work it starts (queries, provider
 * calls, mail) is in the request's trace even after the body was read in another async context.
 */
export function registerHttpSpans(app: FastifyInstance): void {
  const traced = new WeakMap<FastifyRequest, Traced>();

  app.addHook('onRequest', (request, _reply, done) => {
    const parent = propagation.extract(ROOT_CONTEXT, request.headers);
    const span = tracer().startSpan(request.method, { kind: SpanKind.SERVER, attributes: { 'http.request.method': request.method } }, parent);
    const spanContext = trace.setSpan(parent, span);
    traced.set(request, { span, context: spanContext });
    context.with(spanContext, done);
  });

  app.addHook('onRoute', (route: RouteOptions) => {
    const handler = route.handler;
    route.handler = function tracedHandler(this: FastifyInstance, request, reply) {
      const entry = traced.get(request);
      return entry === undefined ? handler.call(this, request, reply) : context.with(entry.context, () => handler.call(this, request, reply));
    };
  });

  app.addHook('onError', (request, _reply, error, done) => {
    const entry = traced.get(request);
    if (entry !== undefined) entry.span.setAttributes(errorAttributes(error));
    done();
  });

  const finish = (request: FastifyRequest, status: number | undefined) => {
    const entry = traced.get(request);
    if (entry === undefined) return;
    traced.delete(request);
    const route = routeOf(request);
    entry.span.updateName(`${request.method} ${route}`);
    entry.span.setAttribute('http.route', route);
    if (status === undefined) {
      entry.span.setAttribute('error.type', 'aborted');
    } else {
      entry.span.setAttribute('http.response.status_code', status);
    }
    if (status === undefined || status >= 500) entry.span.setStatus({ code: SpanStatusCode.ERROR });
    entry.span.end();
  };
  app.addHook('onResponse', (request, reply, done) => {
    finish(request, reply.statusCode);
    done();
  });
  app.addHook('onRequestAbort', (request, done) => {
    finish(request, undefined);
    done();
  });
}
