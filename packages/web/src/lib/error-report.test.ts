import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { json, stubFetch, type RecordedCall } from '../test/harness';
import { listenForErrors } from './error-listener';

const TOKEN = 'q9XkV2mB7nR4tY6uI1oP3aS5dF8gH0jK';
const REPORT = 'POST /api/client/errors';

function reports(calls: RecordedCall[]): RecordedCall[] {
  return calls.filter((call) => `${call.method} ${call.url}` === REPORT);
}

function throwUncaught(error: unknown, message = error instanceof Error ? error.message : String(error)): void {
  window.dispatchEvent(new ErrorEvent('error', { error, message }));
}

describe('the page reports its uncaught errors to the service (decision 0026)', () => {
  beforeAll(() => {
    listenForErrors();
  });
  beforeEach(() => {
    // Each test gets a fresh reporter, so its per-page count starts at zero.
    vi.resetModules();
  });
  afterEach(() => {
    window.history.replaceState(null, '', '/');
  });

  it('an uncaught error: the route template, the name and message, the stack, without emails, tokens or query strings', async () => {
    const calls = stubFetch({ [REPORT]: () => json(200, {}) });
    window.history.replaceState(null, '', `/reset-password/${TOKEN}?from=%2Fhome`);
    const error = new TypeError(`no account for ann@example.com at /reset-password/${TOKEN}`);
    error.stack = `TypeError: boom\n    at https://auth.example.com/reset-password/${TOKEN}?email=ann@example.com:1:2`;
    throwUncaught(error);

    await vi.waitFor(() => expect(reports(calls)).toHaveLength(1));
    const [report] = reports(calls);
    expect(report?.body).toEqual({
      message: 'TypeError: no account for [email] at /reset-password/[token]',
      stack: 'TypeError: boom\n    at https://auth.example.com/reset-password/[token]?[query]',
      route: '/reset-password/:token',
    });
    // A write like every other: the XSRF header comes from its cookie when there is one.
    expect(report?.headers.get('Content-Type')).toBe('application/json');
    expect(JSON.stringify(report?.body)).not.toContain(TOKEN);
  });

  it('an unhandled rejection is reported too, a non-error reason by its kind only', async () => {
    const calls = stubFetch({ [REPORT]: () => json(200, {}) });
    window.history.replaceState(null, '', '/sign-in');
    window.dispatchEvent(Object.assign(new Event('unhandledrejection'), { reason: { password: 'hunter2' } }));
    await vi.waitFor(() => expect(reports(calls)).toHaveLength(1));
    expect(reports(calls)[0]?.body).toEqual({ message: 'Non-error value: [object Object]', route: '/sign-in' });
  });

  it('at most five reports per page, each distinct error once; "Script error." from another origin is not sent', async () => {
    const calls = stubFetch({ [REPORT]: () => json(429, { errorMessage: 'rateLimitExeeded' }) });
    window.history.replaceState(null, '', '/sso-sign-in');
    throwUncaught(new Error('same'));
    throwUncaught(new Error('same'));
    throwUncaught(null, 'Script error.');
    for (let i = 0; i < 10; i++) throwUncaught(new Error(`different ${i}`));
    await vi.waitFor(() => expect(reports(calls)).toHaveLength(5));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(reports(calls).map((call) => (call.body as { message: string }).message)).toEqual([
      'Error: same',
      'Error: different 0',
      'Error: different 1',
      'Error: different 2',
      'Error: different 3',
    ]);
  });
});
