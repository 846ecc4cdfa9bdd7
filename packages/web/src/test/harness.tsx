import { FLAG_DEFAULTS, type InlineDictionary, type RuntimeConfig } from '@foyer/contract/core';
import en from '@foyer/contract/lang/en.json';
import { render } from '@testing-library/react';
import { StrictMode, useEffect, type ReactNode } from 'react';
import { MemoryRouter, useLocation } from 'react-router';
import { vi } from 'vitest';
import { App } from '../app';
import { PageSpinner } from '../components/card-layout';
import { I18nProvider } from '../lib/i18n';
import { RuntimeConfigProvider } from '../lib/runtime-config';

/**
 * Component tests run the real app against a stubbed `fetch`: the one thing mocked here, since
 * no account service runs inside jsdom. The browser flows against the real server are the e2e
 * suite's job. `window.location` is replaced too, because jsdom cannot navigate.
 */

export const ENGLISH: InlineDictionary = { locale: 'en', messages: en };
const ENGLISH_VISITOR: readonly string[] = ['en'];

export const TEST_CONFIG: RuntimeConfig = {
  env: 'test',
  serverUrls: { app: 'https://app.foyer.test', marketing: 'https://www.foyer.test' },
  flags: { ...FLAG_DEFAULTS },
  googleEnabled: false,
  defaultHome: '/home',
};

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

/**
 * Replaces `fetch` with a table of answers keyed by "METHOD /path". An unlisted request gets a
 * 404 `notFound`, and every request is recorded for the test to inspect.
 */
export function stubFetch(routes: Record<string, FetchHandler>): RecordedCall[] {
  const calls: RecordedCall[] = [];
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
      calls.push(recorded);
      if (init.signal?.aborted) throw new DOMException('The operation was aborted.', 'AbortError');
      const handler = routes[`${method} ${url}`];
      return handler ? handler(recorded) : json(404, { errorMessage: 'notFound' });
    }),
  );
  return calls;
}

/** A promise the test settles by hand, for observing a request while it is in flight. */
export function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

/** Stands in for window.location (jsdom cannot navigate) and records where the page went. */
export function stubLocation() {
  const real = window.location;
  const assign = vi.fn<(url: string) => void>();
  const replace = vi.fn<(url: string) => void>();
  vi.stubGlobal('location', {
    href: real.href,
    origin: real.origin,
    protocol: real.protocol,
    host: real.host,
    hostname: real.hostname,
    port: real.port,
    pathname: real.pathname,
    search: real.search,
    hash: real.hash,
    assign,
    replace,
    reload: vi.fn(),
  });
  return { assign, replace };
}

/** Reports the in-app address, so a test can check where a redirect led. */
function LocationProbe({ onChange }: { onChange: (path: string) => void }) {
  const { pathname, search } = useLocation();
  useEffect(() => onChange(`${pathname}${search}`), [onChange, pathname, search]);
  return null;
}

export interface RenderAppOptions {
  config?: RuntimeConfig;
  languages?: readonly string[];
  inline?: InlineDictionary;
}

export function renderApp(path: string, { config = TEST_CONFIG, languages = ENGLISH_VISITOR, inline = ENGLISH }: RenderAppOptions = {}) {
  const location = { current: '' };
  const result = render(
    <Providers config={config} languages={languages} inline={inline}>
      <MemoryRouter initialEntries={[path]}>
        <App />
        <LocationProbe
          onChange={(path) => {
            location.current = path;
          }}
        />
      </MemoryRouter>
    </Providers>,
  );
  return { ...result, location };
}

export function Providers({
  config = TEST_CONFIG,
  languages = ENGLISH_VISITOR,
  inline = ENGLISH,
  children,
}: RenderAppOptions & { children: ReactNode }) {
  // StrictMode as in main.tsx: effects run, clean up and run again, so a missing cleanup shows.
  return (
    <StrictMode>
      <RuntimeConfigProvider value={config}>
        <I18nProvider inline={inline} languages={languages} fallback={<PageSpinner />}>
          {children}
        </I18nProvider>
      </RuntimeConfigProvider>
    </StrictMode>
  );
}
