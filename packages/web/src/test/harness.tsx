import { FLAG_DEFAULTS, type InlineDictionary, type RuntimeConfig } from '@foyer/contract/core';
import en from '@foyer/contract/lang/en.json';
import { render } from '@testing-library/react';
import { StrictMode, type ReactNode } from 'react';
import { vi } from 'vitest';
import { PageSpinner } from '../components/card-layout';
import { I18nProvider } from '../lib/i18n';
import { RuntimeConfigProvider } from '../lib/runtime-config';
import { Page } from '../page';

/**
 * Component tests run the real app against a stubbed `fetch`: the one thing mocked here, since
 * no account service runs inside jsdom. The browser flows against the real server are the e2e
 * suite's job. `window.location`'s navigation methods are replaced too, because jsdom cannot
 * load another page; moving within the page (history.replaceState, as the router does) works.
 */

// jsdom's own Location, whatever `location` is stubbed with.
const realLocation = window.location;

export { json, SESSION, stubFetch, type FetchHandler, type RecordedCall } from './fetch-stub';

export const ENGLISH: InlineDictionary = { locale: 'en', messages: en };
const ENGLISH_VISITOR: readonly string[] = ['en'];

export const TEST_CONFIG: RuntimeConfig = {
  env: 'test',
  serverUrls: { app: 'https://app.foyer.test', marketing: 'https://www.foyer.test' },
  flags: { ...FLAG_DEFAULTS },
  googleEnabled: false,
  defaultHome: '/home',
};

/** A promise the test settles by hand, for observing a request while it is in flight. */
export function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

/**
 * Stands in for window.location (jsdom cannot load another page) and records where the page
 * went. The address itself is read through to jsdom's, so it follows renderApp and the router.
 */
export function stubLocation() {
  const assign = vi.fn<(url: string) => void>();
  const replace = vi.fn<(url: string) => void>();
  vi.stubGlobal('location', {
    get href() {
      return realLocation.href;
    },
    get origin() {
      return realLocation.origin;
    },
    get protocol() {
      return realLocation.protocol;
    },
    get host() {
      return realLocation.host;
    },
    get hostname() {
      return realLocation.hostname;
    },
    get port() {
      return realLocation.port;
    },
    get pathname() {
      return realLocation.pathname;
    },
    get search() {
      return realLocation.search;
    },
    get hash() {
      return realLocation.hash;
    },
    assign,
    replace,
    reload: vi.fn(),
  });
  return { assign, replace };
}

export interface RenderAppOptions {
  config?: RuntimeConfig;
  languages?: readonly string[];
  inline?: InlineDictionary;
}

/**
 * Opens `path` as main.tsx does: the page's address becomes `path` (as if it had been loaded
 * there), then the page renders under the providers: `/sign-in` without a router, anything else
 * in the router shell. `location.current` is the address afterwards (path and query), to check
 * where a redirect inside the page led.
 */
export function renderApp(path: string, { config = TEST_CONFIG, languages = ENGLISH_VISITOR, inline = ENGLISH }: RenderAppOptions = {}) {
  window.history.replaceState(null, '', path);
  const result = render(
    <Providers config={config} languages={languages} inline={inline}>
      <Page pathname={realLocation.pathname} />
    </Providers>,
  );
  const location = {
    get current() {
      return `${realLocation.pathname}${realLocation.search}`;
    },
  };
  return { ...result, location };
}

export function Providers({ config = TEST_CONFIG, languages = ENGLISH_VISITOR, inline = ENGLISH, children }: RenderAppOptions & { children: ReactNode }) {
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
