import { afterEach, describe, expect, it, vi } from 'vitest';
import { json, stubFetch } from '../test/harness';
import { call, callTimeout, globalErrorKey, handleFailure, send, setCallTimeout } from './api';

describe('API client (spec §7)', () => {
  it('sends a GET without a body and hands the answer on unread', async () => {
    const calls = stubFetch({ 'GET /api/account/session': () => json(200, { user: { id: 'u1' }, expiresAt: 'x' }) });
    // Unread: a screen that reads an answer parses it first (fetchAnswer, ./answers).
    expect(await send('session', {})).toEqual({ ok: true, data: { user: { id: 'u1' }, expiresAt: 'x' } });
    expect(await call('session', {})).toEqual({ ok: true, data: undefined });
    expect(calls[0]?.body).toBeUndefined();
    expect(calls[0]?.headers.get('Content-Type')).toBeNull();
    expect(calls[0]?.headers.get('X-DeviceId')).toMatch(/^[A-Za-z0-9]{12}$/);
    expect(calls[0]?.headers.has('X-XSRF-TOKEN')).toBe(false);
    expect(calls[0]?.credentials).toBe('same-origin');
    expect(calls[0]?.headers.has('Authorization')).toBe(false);
  });

  it('sends a device token as Authorization: Bearer when given one (spec §4, §7)', async () => {
    const calls = stubFetch({ 'POST /api/community/termsAgreed': () => json(200, {}) });
    await call('termsAgreed', { body: {}, bearer: 'device-token' });
    expect(calls[0]?.headers.get('Authorization')).toBe('Bearer device-token');
  });

  it('turns an error answer into its code and status', async () => {
    stubFetch({ 'POST /api/account/signin': () => json(423, { errorMessage: 'accountLocked' }) });
    // The body goes along unread, for a screen that reads a detail of it (decision 0022).
    expect(await call('signin', { body: { email: 'a', hashPassword: 'b', deviceId: 'c' } })).toEqual({
      ok: false,
      code: 'accountLocked',
      status: 423,
      body: { errorMessage: 'accountLocked' },
    });
  });

  it('treats an unknown code, a body that is not JSON and an empty success as unexpected', async () => {
    stubFetch({
      'GET /api/account/session': () => json(400, { errorMessage: 'somethingNew' }),
      'POST /api/account/signout': () => new Response('', { status: 200 }),
      'POST /api/account/signin': () => new Response('<h1>502</h1>', { status: 502 }),
    });
    expect(await call('session', {})).toMatchObject({ ok: false, code: 'unexpectedError', status: 400 });
    expect(await call('signout', { body: {} })).toMatchObject({ ok: false, code: 'unexpectedError', status: 200 });
    expect(await call('signin', {})).toMatchObject({ ok: false, code: 'unexpectedError', status: 502 });
  });

  it('maps transport failures to network and aborted', async () => {
    stubFetch({ 'GET /api/account/session': () => Promise.reject(new TypeError('Failed to fetch')) });
    expect(await call('session', {})).toEqual({ ok: false, code: 'network' });
    const controller = new AbortController();
    controller.abort();
    expect(await call('session', { signal: controller.signal })).toEqual({ ok: false, code: 'aborted' });
  });

  it('fills path parameters', async () => {
    const calls = stubFetch({});
    await call('setupAccountFields', { params: { id: 'a/b' } });
    expect(calls[0]?.url).toBe('/api/account/setupAccount/fields/a%2Fb');
  });
});

describe('error handling by code (STYLE.md)', () => {
  it('uses the screen handler when there is one, otherwise the global fallback', () => {
    const handlers = { accountLocked: () => 'locked' };
    expect(handleFailure('accountLocked', handlers, globalErrorKey)).toBe('locked');
    expect(handleFailure('network', handlers, globalErrorKey)).toBe('error.network');
    expect(handleFailure('aborted', handlers, globalErrorKey)).toBe('error.requestAborted');
    expect(handleFailure('timeout', handlers, globalErrorKey)).toBe('error.timeout');
    expect(handleFailure('unsupportedProtocol', handlers, globalErrorKey)).toBe('error.unsupportedProtocol');
    expect(handleFailure('rateLimitExeeded', handlers, globalErrorKey)).toBe('error.rateLimitExeeded');
    expect(handleFailure('invalidToken', handlers, globalErrorKey)).toBe('error.unexpected');
  });
});

describe('timeout and protocol (spec §8, §9)', () => {
  afterEach(() => {
    setCallTimeout(0);
    vi.useRealTimers();
  });

  /** A service that never answers; the request ends only when its signal aborts. */
  function stubSilentService(): void {
    vi.stubGlobal(
      'fetch',
      vi.fn(
        (_input: RequestInfo | URL, init: RequestInit = {}) =>
          new Promise<Response>((_, reject) => {
            init.signal?.addEventListener('abort', () => reject(new DOMException('The operation was aborted.', 'AbortError')));
          }),
      ),
    );
  }

  it('waits without limit by default, as spec §9 says (0 means none)', async () => {
    vi.useFakeTimers();
    stubSilentService();
    let settled = false;
    void call('session', {}).then(() => (settled = true));
    await vi.advanceTimersByTimeAsync(10 * 60_000);
    expect(settled).toBe(false);
    expect(callTimeout()).toBe(0);
  });

  it('gives up after the configured timeout, told apart from an abort', async () => {
    vi.useFakeTimers();
    stubSilentService();
    setCallTimeout(1500);
    const pending = call('session', {});
    await vi.advanceTimersByTimeAsync(1499);
    const early = await Promise.race([pending, Promise.resolve('pending')]);
    expect(early).toBe('pending');
    await vi.advanceTimersByTimeAsync(1);
    expect(await pending).toEqual({ ok: false, code: 'timeout' });
    expect(callTimeout()).toBe(1500);

    const controller = new AbortController();
    const aborted = call('session', { signal: controller.signal });
    controller.abort();
    expect(await aborted).toEqual({ ok: false, code: 'aborted' });
  });

  it('refuses to call from a page not opened over http(s)', async () => {
    const calls = stubFetch({});
    vi.stubGlobal('location', { ...window.location, protocol: 'file:' });
    try {
      expect(await call('session', {})).toEqual({ ok: false, code: 'unsupportedProtocol' });
      expect(calls).toEqual([]);
    } finally {
      vi.unstubAllGlobals();
    }
  });
});
