import { afterEach, beforeEach, vi, type MockInstance } from 'vitest';

// STYLE.md: any console.error during a test fails it. An error printed and ignored is a bug
// that a green run would otherwise hide.
let consoleError: MockInstance<typeof console.error> | undefined;

beforeEach(() => {
  consoleError = vi.spyOn(console, 'error');
});

afterEach(() => {
  const calls = consoleError?.mock.calls ?? [];
  consoleError?.mockRestore();
  if (calls.length > 0) {
    throw new Error(`console.error was called during the test:\n${calls.map((args) => args.map(String).join(' ')).join('\n')}`);
  }
});
