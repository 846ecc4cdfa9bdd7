/**
 * Uncaught errors and unhandled rejections of the page go to the service (decision 0026). Only
 * this listener is on the first load; the reporter is fetched when the first error happens.
 */
export function listenForErrors(): void {
  const report = (error: unknown, message: string) => {
    import('./error-report').then((reporter) => reporter.reportError(error, message)).catch(() => undefined);
  };
  window.addEventListener('error', (event) => report(event.error, event.message));
  window.addEventListener('unhandledrejection', (event) => report(event.reason, 'Unhandled rejection'));
}
