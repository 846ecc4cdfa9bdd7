import type { SsoLandingCode } from '@foyer/contract';

/**
 * A sign-in that cannot complete: the browser lands on `/sso-landing?code=…` (spec §8's codes)
 * and the reason goes to the audit log, never to the page.
 * - 1001 the person is not a member of the connection's organisation, or is blocked;
 * - 1002 the response cannot be parsed or fails a check;
 * - 1003 the account cannot be created;
 * - 1004 the asserted email collides with another account;
 * - 1005 the connection is misconfigured or its provider cannot be used.
 */
export class SsoFailure extends Error {
  override name = 'SsoFailure';
  constructor(
    readonly code: SsoLandingCode,
    readonly reason: string,
    options?: ErrorOptions,
  ) {
    super(`${code}: ${reason}`, options);
  }
}
