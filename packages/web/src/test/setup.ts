import '@testing-library/jest-dom/vitest';
import { cleanup, configure } from '@testing-library/react';
import { afterEach, beforeEach, expect, vi } from 'vitest';
import { consoleErrors } from './console-errors';
import { stubFetch } from './fetch-stub';

// A test's first render of a screen loads the screen's code (a lazy route) through Vite's
// transform, which on a busy two-core machine took over the default second of findBy and waitFor
// (a CI run failed that way). Awaited texts get 5 s; the test itself gets 15 (vitest.config.ts).
configure({ asyncUtilTimeout: 5000 });

// Any console.error during a test fails it (STYLE.md, after epic-stack): React warnings and
// unexpected failures must not pass quietly. A test that expects one takes it out of the list.
beforeEach(() => {
  // No account service runs in jsdom: a test that does not stub `fetch` itself still gets
  // answers (the session check says 'not signed in', anything else 'not found'), never a real
  // request.
  stubFetch({});
  consoleErrors.length = 0;
  vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => {
    consoleErrors.push(args);
  });
});

afterEach(() => {
  cleanup();
  localStorage.clear();
  for (const cookie of document.cookie.split(';')) {
    const name = cookie.split('=')[0]?.trim();
    if (name) document.cookie = `${name}=; expires=Thu, 01 Jan 1970 00:00:00 GMT; path=/`;
  }
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
  // renderApp and the router move the page's address; the next test starts from the root.
  window.history.replaceState(null, '', '/');
  expect(consoleErrors, 'console.error was called during the test').toEqual([]);
});
