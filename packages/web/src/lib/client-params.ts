/**
 * Spec §2's parameters that say which client a sign-in is for (decision 0019): the desktop app
 * (`native`), the browser extension (`chrome`), a token to hand over instead of a session in this
 * browser (`useTransferToken`), and the client's own period id. They travel on every link from one
 * way of signing in to another (password, Google, SSO), or a sign-in meant for the app would sign
 * this browser in instead.
 */
export const CLIENT_PARAMS = ['native', 'chrome', 'useTransferToken', 'clientAuthenticationPeriodId'] as const;

export type ClientParams = Record<(typeof CLIENT_PARAMS)[number], string | null>;

/** The client parameters of a query, for `withQuery` (absent ones stay out of the link). */
export function clientParams(query: URLSearchParams): ClientParams {
  return Object.fromEntries(CLIENT_PARAMS.map((name) => [name, query.get(name)])) as ClientParams;
}
