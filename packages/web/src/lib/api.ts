import type { CALLS } from '@foyer/contract';
import {
  CALL_PATHS,
  DEVICE_ID_HEADER,
  XSRF_HEADER,
  callUrl,
  isErrorCode,
  type CallName,
  type CallPath,
  type ErrorCode,
  type MessageKey,
} from '@foyer/contract/core';
// Types only: zod and the schemas reach the page with ./answers, never with this module.
import type * as z from 'zod/mini';
import { deviceId, xsrfToken } from './storage';

type Definition<N extends CallName> = (typeof CALLS)[N];
export type CallBody<N extends CallName> = Definition<N> extends { body: infer B extends z.ZodMiniType } ? z.input<B> : never;

/** A failure is a contract error code, or one of the transport failures of spec §8. */
export type FailureCode = ErrorCode | 'network' | 'aborted' | 'timeout' | 'unsupportedProtocol';
export type CallResult<T> = { ok: true; data: T } | { ok: false; code: FailureCode; status?: number; body?: unknown };

export interface CallOptions<N extends CallName> {
  body?: CallBody<N>;
  /** Values for `:name` segments of the call's path. */
  params?: Record<string, string>;
  signal?: AbortSignal;
  /** A device token sent as `Authorization: Bearer` (spec §4's forum credential lookup). */
  bearer?: string;
}

function isAbort(error: unknown): boolean {
  return typeof error === 'object' && error !== null && 'name' in error && error.name === 'AbortError';
}

let timeoutMs = 0;

/**
 * Spec §9: how long a call may take, from the runtime config (HTTP_TIMEOUT_MS); 0, the default,
 * means none. Set once by main.tsx before the first call.
 */
export function setCallTimeout(ms: number): void {
  timeoutMs = ms > 0 ? ms : 0;
}

/** The timeout spec §8's 'timeout of N ms exceeded' names. */
export function callTimeout(): number {
  return timeoutMs;
}

/** A page opened from anything but http(s) (a saved file, an app's own scheme) cannot call the service. */
function supportedProtocol(): boolean {
  return typeof location === 'undefined' || location.protocol === 'http:' || location.protocol === 'https:';
}

async function readJson(response: Response): Promise<unknown> {
  const text = await response.text();
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * Sends a call to the account service (spec §7): same origin, JSON bodies, `Accept:
 * application/json`, the XSRF header from its cookie, the device id header, and the configured
 * timeout (spec §9: 0, the default, means none; the caller may also pass an AbortSignal). The session cookie is HttpOnly and set by
 * the server; the page never stores `otter` itself.
 *
 * A refusal is read for its code only, checked against the contract's registry. A success's body
 * is handed on unread: a screen that reads it calls `fetchAnswer` (./answers), which parses it
 * through the call's contract schema first. This module stays free of zod, since the sign-in
 * page, which reads nothing of an answer, cannot afford it on its first load (decision 0017).
 */
export async function send<N extends CallName>(name: N, options: CallOptions<N> = {}): Promise<CallResult<unknown>> {
  const definition: CallPath = CALL_PATHS[name];
  const headers: Record<string, string> = { Accept: 'application/json', [DEVICE_ID_HEADER]: deviceId() };
  const token = xsrfToken();
  if (token !== undefined) headers[XSRF_HEADER] = token;
  if (options.bearer !== undefined) headers.Authorization = `Bearer ${options.bearer}`;
  const init: RequestInit = { method: definition.method, headers, credentials: 'same-origin' };
  if (!supportedProtocol()) return { ok: false, code: 'unsupportedProtocol' };
  // One controller carries both the caller's abort and the timeout, told apart by `timedOut`.
  const controller = new AbortController();
  let timedOut = false;
  const limit = timeoutMs;
  const timer =
    limit > 0
      ? setTimeout(() => {
          timedOut = true;
          controller.abort();
        }, limit)
      : undefined;
  const forward = () => controller.abort();
  if (options.signal?.aborted) controller.abort();
  options.signal?.addEventListener('abort', forward, { once: true });
  init.signal = controller.signal;
  if (definition.method !== 'GET') {
    headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(options.body ?? {});
  }

  let response: Response;
  let payload: unknown;
  try {
    response = await fetch(callUrl(name, options.params), init);
    payload = await readJson(response);
  } catch (error) {
    // Spec §8's generic transport texts: fetch rejects with a TypeError when the network fails.
    if (timedOut) return { ok: false, code: 'timeout' };
    return { ok: false, code: isAbort(error) ? 'aborted' : 'network' };
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', forward);
  }

  if (response.ok) {
    // Every answer of the service is JSON; an empty or unreadable one is no answer.
    if (payload === undefined) return { ok: false, code: 'unexpectedError', status: response.status };
    return { ok: true, data: payload };
  }
  const code =
    typeof payload === 'object' && payload !== null && 'errorMessage' in payload && isErrorCode(payload.errorMessage)
      ? payload.errorMessage
      : 'unexpectedError';
  // The refusal's body goes along unread, for the few screens that read a detail of it.
  return { ok: false, code, status: response.status, body: payload };
}

/** A call whose answer the screen does not read: whether it succeeded, or why not. */
export async function call<N extends CallName>(name: N, options: CallOptions<N> = {}): Promise<CallResult<undefined>> {
  const result = await send(name, options);
  return result.ok ? { ok: true, data: undefined } : result;
}

/**
 * Errors are handled by code (STYLE.md, after Logto): each screen keeps a table of handlers for
 * the codes it explains, and everything else goes to one global fallback.
 */
export type FailureHandlers<R> = Partial<Record<FailureCode, (code: FailureCode) => R>>;

export function handleFailure<R>(code: FailureCode, handlers: FailureHandlers<R>, fallback: (code: FailureCode) => R): R {
  const handler = handlers[code];
  return handler ? handler(code) : fallback(code);
}

/** The global fallback: the transport texts and the rate limit of spec §8, otherwise the unexpected error. */
export function globalErrorKey(code: FailureCode): MessageKey {
  switch (code) {
    case 'network':
      return 'error.network';
    case 'aborted':
      return 'error.requestAborted';
    case 'timeout':
      return 'error.timeout';
    case 'unsupportedProtocol':
      return 'error.unsupportedProtocol';
    case 'rateLimitExeeded':
      return 'error.rateLimitExeeded';
    case 'commonPassword':
      return 'error.commonPassword';
    default:
      return 'error.unexpected';
  }
}
