import {
  CLIENT_ERROR_MAX_MESSAGE,
  CLIENT_ERROR_MAX_PER_PAGE,
  CLIENT_ERROR_MAX_STACK,
  clientErrorRoute,
  scrubClientErrorText,
  type ClientErrorRoute,
} from '@foyer/contract/client-errors';
import { call } from './api';

/**
 * The page's error reporter (decision 0026), loaded by ./error-listener on the first uncaught
 * error only, so the sign-in page's first load carries none of it. A report names the route's
 * template, never the visited path, and its text is scrubbed of emails, tokens, passwords and
 * query strings before it leaves; the service scrubs again.
 */

let sent = 0;
const seen = new Set<string>();

/** Set at build time (`VITE_FOYER_RELEASE=<version or commit> npm run build`); absent otherwise. */
const RELEASE: unknown = import.meta.env.VITE_FOYER_RELEASE;

export interface ClientErrorReport {
  message: string;
  stack?: string;
  route: ClientErrorRoute;
  release?: string;
}

function cut(text: string, max: number): string {
  return text.length > max ? text.slice(0, max) : text;
}

/** What is reported of an error: its name and message, its stack, all scrubbed and cut to size. */
export function describeError(error: unknown, fallbackMessage: string, pathname: string): ClientErrorReport | undefined {
  let message = fallbackMessage;
  let stack: string | undefined;
  if (error instanceof Error) {
    message = `${error.name}: ${error.message}`;
    stack = typeof error.stack === 'string' ? error.stack : undefined;
  } else if (typeof error === 'string') {
    message = error;
  } else if (error !== undefined && error !== null) {
    message = `Non-error value: ${Object.prototype.toString.call(error)}`;
  }
  message = cut(scrubClientErrorText(message).trim(), CLIENT_ERROR_MAX_MESSAGE);
  // A script of another origin tells nothing but "Script error.": nothing worth a report.
  if (message === '' || message === 'Script error.') return undefined;
  return {
    message,
    ...(stack === undefined ? {} : { stack: cut(scrubClientErrorText(stack), CLIENT_ERROR_MAX_STACK) }),
    route: clientErrorRoute(pathname),
    ...(typeof RELEASE === 'string' && RELEASE !== '' ? { release: cut(RELEASE, 100) } : {}),
  };
}

/** Sends one report, at most CLIENT_ERROR_MAX_PER_PAGE per page and each distinct error once. */
export async function reportError(error: unknown, fallbackMessage: string, pathname: string = window.location.pathname): Promise<void> {
  const report = describeError(error, fallbackMessage, pathname);
  if (report === undefined || sent >= CLIENT_ERROR_MAX_PER_PAGE || seen.has(report.message)) return;
  sent += 1;
  seen.add(report.message);
  // A failed report is dropped: reporting it would be one more error to report.
  await call('clientErrors', { body: report });
}
