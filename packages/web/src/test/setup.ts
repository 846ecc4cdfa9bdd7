import '@testing-library/jest-dom/vitest';
import { cleanup } from '@testing-library/react';
import { afterEach, beforeEach, expect, vi } from 'vitest';
import { consoleErrors } from './console-errors';
import { stubFetch } from './fetch-stub';

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
