import http from 'node:http';
import https from 'node:https';
import type { Span } from '@opentelemetry/api';
import type { CustomFetch, CustomFetchOptions } from 'openid-client';
import { recordResponseStatus, startClientSpan } from '../tracing/fetch-spans.js';
import { markFailed, tracingActive } from '../tracing/tracing.js';

/**
 * The largest answer read from the provider. Its discovery document, keys, tokens and userinfo
 * are a few kilobytes; a provider that sends more is answering garbage, and the sign-in fails as
 * when it is down instead of the service holding whatever it sends.
 */
export const PROVIDER_ANSWER_MAX_BYTES = 256 * 1024;

/** Statuses whose Response has no body (Fetch standard, "null body status"). */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/**
 * The provider's HTTP calls for openid-client (its `customFetch`), over node:http(s) with
 * keep-alive connections, instead of the global `fetch` (decision 0029: Undici's fetch was a
 * quarter of the Google callback's main thread; a call to a known provider needs none of its
 * streams, caches or redirects). It keeps fetch's contract where openid-client and
 * `providerDown` rely on it: redirects are not followed (openid-client asks for `manual`), the
 * call's signal aborts it with the signal's reason (a `TimeoutError` on the provider timeout), and
 * a connection, TLS or protocol failure rejects with a `TypeError`, as fetch's "fetch failed".
 * A call whose kept connection the provider closed as it went out is sent once more on a new one.
 * Each call is a client span under the request's, as a fetch is (decision 0026).
 */
export function providerFetch(): CustomFetch {
  const agents = {
    'https:': new https.Agent({ keepAlive: true }),
    'http:': new http.Agent({ keepAlive: true }),
  };
  return (url: string, options: CustomFetchOptions) =>
    new Promise<Response>((resolve, reject) => {
      const { signal } = options;
      if (signal?.aborted === true) {
        reject(signal.reason);
        return;
      }
      const target = new URL(url);
      const transport = target.protocol === 'https:' ? https : target.protocol === 'http:' ? http : undefined;
      if (transport === undefined) {
        reject(new TypeError(`fetch failed: ${target.protocol} is not http or https`));
        return;
      }
      // As fetch: an address with credentials in it is refused, not sent as Basic authentication.
      if (target.username !== '' || target.password !== '') {
        reject(new TypeError('fetch failed: the address carries credentials'));
        return;
      }
      let body: Buffer | undefined;
      try {
        body = bodyBytes(options.body);
      } catch (error) {
        reject(error);
        return;
      }
      const headers: Record<string, string> = { ...options.headers };
      if (body !== undefined) {
        headers['content-length'] = String(body.length);
        if (options.body instanceof URLSearchParams && !hasHeader(headers, 'content-type')) {
          headers['content-type'] = 'application/x-www-form-urlencoded;charset=UTF-8';
        }
      }
      const span: Span | undefined = tracingActive() ? startClientSpan(options.method, target, target.pathname) : undefined;
      // The request and its answer can both report one failure: the first one settles the call.
      let settled = false;
      const failed = (error: unknown) => {
        if (settled) return;
        settled = true;
        const reason: unknown = signal?.aborted === true ? signal.reason : new TypeError('fetch failed', { cause: error });
        if (span !== undefined) {
          markFailed(span, reason);
          span.end();
        }
        reject(reason);
      };
      const send = (retried: boolean) => {
        const request = transport.request(target, {
          method: options.method,
          headers,
          agent: agents[target.protocol as 'https:' | 'http:'],
          ...(signal === undefined ? {} : { signal }),
        });
        let answered = false;
        request.on('error', (error: NodeJS.ErrnoException) => {
          // A kept connection the provider closed as this call went out (its idle timeout): the
          // call never reached it, so it is sent once more on a new connection, as Node's
          // documentation of `reusedSocket` advises.
          if (!retried && !answered && request.reusedSocket && error.code === 'ECONNRESET' && signal?.aborted !== true) send(true);
          else failed(error);
        });
        request.on('response', (answer) => {
          answered = true;
          const chunks: Buffer[] = [];
          let length = 0;
          answer.on('data', (chunk: Buffer) => {
            length += chunk.length;
            if (length > PROVIDER_ANSWER_MAX_BYTES) {
              answer.destroy(new Error(`the provider's answer is larger than ${PROVIDER_ANSWER_MAX_BYTES} bytes`));
              return;
            }
            chunks.push(chunk);
          });
          answer.on('error', failed);
          answer.on('end', () => {
            try {
              const status = answer.statusCode ?? 0;
              const responseHeaders = new Headers();
              const raw = answer.rawHeaders;
              for (let i = 0; i + 1 < raw.length; i += 2) responseHeaders.append(raw[i]!, raw[i + 1]!);
              const content = NULL_BODY_STATUSES.has(status) ? null : Buffer.concat(chunks, length);
              const response = new Response(content, { status, statusText: answer.statusMessage ?? '', headers: responseHeaders });
              settled = true;
              if (span !== undefined) {
                recordResponseStatus(span, status);
                span.end();
              }
              resolve(response);
            } catch (error) {
              // A status or header no Response can carry: the provider is answering garbage.
              failed(error);
            }
          });
        });
        request.end(body);
      };
      send(false);
    });
}

function hasHeader(headers: Record<string, string>, name: string): boolean {
  return Object.keys(headers).some((key) => key.toLowerCase() === name);
}

/** The request bodies openid-client sends: none, form parameters, text or bytes. */
function bodyBytes(body: CustomFetchOptions['body']): Buffer | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return Buffer.from(body, 'utf8');
  if (body instanceof URLSearchParams) return Buffer.from(body.toString(), 'utf8');
  if (body instanceof Uint8Array) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  if (body instanceof ArrayBuffer) return Buffer.from(body);
  throw new TypeError('fetch failed: a streamed request body is not sent to the provider');
}
