import { vi } from 'vitest';

export interface RecordedCall {
  method: string;
  url: string;
  headers: Headers;
  body: unknown;
  credentials: RequestCredentials | undefined;
}

export type FetchHandler = (call: RecordedCall) => Response | Promise<Response>;

export function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
}

/** The session check that sign-in and sign-up make when they open (lib/signed-in.ts). */
export const SESSION = 'GET /api/account/session';

/**
 * Replaces `fetch` with a table of answers keyed by "METHOD /path". An unlisted request gets a
 * 404 `notFound`, and every request is recorded for the test to inspect. The session check is
 * the exception: unless the table lists it, it is answered 'not signed in' and left out of the
 * record, so that tests of the forms see only the calls the forms make.
 */
export function stubFetch(routes: Record<string, FetchHandler>): RecordedCall[] {
  const calls: RecordedCall[] = [];
  const sessionListed = SESSION in routes;
  vi.stubGlobal(
    'fetch',
    vi.fn(async (input: RequestInfo | URL, init: RequestInit = {}) => {
      const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
      const method = init.method ?? 'GET';
      const recorded: RecordedCall = {
        method,
        url,
        headers: new Headers(init.headers),
        body: typeof init.body === 'string' ? (JSON.parse(init.body) as unknown) : undefined,
        credentials: init.credentials,
      };
      const key = `${method} ${url}`;
      if (key === SESSION && !sessionListed) {
        if (init.signal?.aborted) throw new DOMException('The operation was aborted.', 'AbortError');
        return json(401, { errorMessage: 'notSignedIn' });
      }
      calls.push(recorded);
      if (init.signal?.aborted) throw new DOMException('The operation was aborted.', 'AbortError');
      const handler = routes[key];
      return handler ? handler(recorded) : json(404, { errorMessage: 'notFound' });
    }),
  );
  return calls;
}
