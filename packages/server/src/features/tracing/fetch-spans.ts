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
 * A client span for one outgoing HTTP call, under the active span: the method, the server's
 * address and port, the scheme and the path without its query and with anything token-shaped taken
 * out. Bodies and headers are never read.
 */
export function startClientSpan(method: string, origin: URL, path: string): Span {
  const verb = method.toUpperCase();
  const port = origin.port === '' ? (origin.protocol === 'https:' ? 443 : 80) : Number(origin.port);
  return tracer().startSpan(
    verb,
    {
      kind: SpanKind.CLIENT,
      attributes: {
        'http.request.method': verb,
        'server.address': origin.hostname,
        'server.port': port,
        'url.scheme': origin.protocol.replace(':', ''),
        'url.path': scrubClientErrorText(path.split(/[?#]/)[0] ?? '/'),
      },
    },
    context.active(),
  );
}

/** The answer's status on its client span; 400 and above mark it failed. */
export function recordResponseStatus(span: Span, statusCode: number): void {
  span.setAttribute('http.response.status_code', statusCode);
  if (statusCode >= 400) span.setStatus({ code: SpanStatusCode.ERROR });
}

/**
 * Client spans for every `fetch` of the service: the bot check, the feature-flag provider, SAML
 * metadata read from an address (the identity providers' OpenID calls make their own with
 * `startClientSpan`: google/provider-fetch.ts). They come from undici's diagnostics channels,
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
    const span = startClientSpan(request.method ?? 'GET', origin, request.path ?? '/');
    spans.set(request, span);
  };
  const onHeaders = (message: unknown) => {
    const { request, response } = message as HeadersMessage;
    const span = spans.get(request);
    if (span !== undefined) recordResponseStatus(span, response.statusCode);
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
