import diagnostics from 'node:diagnostics_channel';
import { SpanKind, SpanStatusCode, context, type Span } from '@opentelemetry/api';
import { scrubClientErrorText } from '@foyer/contract';
import { errorAttributes, tracer } from './tracing.js';

/** What undici publishes about a request on its diagnostics channels (Node's own fetch included). */
interface UndiciRequest {
  origin?: string | URL;
  method?: string;
  path?: string;
}
interface CreateMessage {
  request: UndiciRequest;
}
interface HeadersMessage {
  request: UndiciRequest;
  response: { statusCode: number };
}
interface ErrorMessage {
  request: UndiciRequest;
  error: unknown;
}

/**
 * Client spans for every `fetch` of the service: the identity providers' discovery, token and key
 * calls (Google, company OIDC) and the bot check. They come from undici's diagnostics channels,
 * which Node's built-in fetch publishes, so nothing is patched and load order does not matter
 * (decision 0026). The path is kept without its query and with anything token-shaped taken out;
 * bodies (codes, client secrets) and headers are never read. Returns the unsubscribe.
 */
export function traceFetches(): () => void {
  const spans = new WeakMap<UndiciRequest, Span>();

  const onCreate = (message: unknown) => {
    const { request } = message as CreateMessage;
    let origin: URL;
    try {
      origin = new URL(String(request.origin));
    } catch {
      return;
    }
    const method = (request.method ?? 'GET').toUpperCase();
    const path = scrubClientErrorText((request.path ?? '/').split(/[?#]/)[0] ?? '/');
    const port = origin.port === '' ? (origin.protocol === 'https:' ? 443 : 80) : Number(origin.port);
    const span = tracer().startSpan(
      method,
      {
        kind: SpanKind.CLIENT,
        attributes: {
          'http.request.method': method,
          'server.address': origin.hostname,
          'server.port': port,
          'url.scheme': origin.protocol.replace(':', ''),
          'url.path': path,
        },
      },
      context.active(),
    );
    spans.set(request, span);
  };
  const onHeaders = (message: unknown) => {
    const { request, response } = message as HeadersMessage;
    const span = spans.get(request);
    if (span === undefined) return;
    span.setAttribute('http.response.status_code', response.statusCode);
    if (response.statusCode >= 400) span.setStatus({ code: SpanStatusCode.ERROR });
  };
  const onEnd = (message: unknown) => {
    const { request } = message as CreateMessage;
    spans.get(request)?.end();
    spans.delete(request);
  };
  const onError = (message: unknown) => {
    const { request, error } = message as ErrorMessage;
    const span = spans.get(request);
    if (span === undefined) return;
    span.setAttributes(errorAttributes(error));
    span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
    spans.delete(request);
  };

  const channels: Array<[string, (message: unknown) => void]> = [
    ['undici:request:create', onCreate],
    ['undici:request:headers', onHeaders],
    ['undici:request:trailers', onEnd],
    ['undici:request:error', onError],
  ];
  for (const [name, listener] of channels) diagnostics.subscribe(name, listener);
  return () => {
    for (const [name, listener] of channels) diagnostics.unsubscribe(name, listener);
  };
}
