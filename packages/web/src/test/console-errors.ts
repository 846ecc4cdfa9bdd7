/** What console.error received during the running test (see setup.ts). */
export const consoleErrors: unknown[][] = [];

/** Takes the expected console.error calls out of the list, so the test does not fail on them. */
export function takeConsoleErrors(): unknown[][] {
  return consoleErrors.splice(0, consoleErrors.length);
}
