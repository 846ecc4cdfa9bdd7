import { describe, expect, it } from 'vitest';
import { CALLS, ErrorBody } from './calls.js';
import { ERROR_CODES, ERROR_STATUS, TRANSPORT_ERRORS, WRITE_TRANSPORT_ERRORS, callErrors, type ErrorCode } from './errors.js';

const entries = Object.entries(CALLS);

describe('the error codes each call declares (decision 0017)', () => {
  it('lists only codes of the registry, each once, and none of the transport ones', () => {
    for (const [name, call] of entries) {
      const own: readonly ErrorCode[] = call.errors;
      expect(new Set(own).size, name).toBe(own.length);
      expect(
        own.filter((code) => !ERROR_CODES.includes(code)),
        name,
      ).toEqual([]);
      expect(
        own.filter((code) => (WRITE_TRANSPORT_ERRORS as readonly ErrorCode[]).includes(code)),
        name,
      ).toEqual([]);
    }
  });

  it('adds the transport codes by method: a write may also fail the XSRF check (spec §7)', () => {
    expect(callErrors(CALLS.session)).toEqual(['notSignedIn', ...TRANSPORT_ERRORS]);
    expect(callErrors(CALLS.signout)).toEqual([...WRITE_TRANSPORT_ERRORS]);
    expect(callErrors(CALLS.signin)).toContain('xsrfMismatch');
    expect(callErrors(CALLS.setupAccountFields)).not.toContain('xsrfMismatch');
  });

  it('follows spec §8 where it names a call’s codes', () => {
    expect(CALLS.signin.errors).toEqual(expect.arrayContaining(['deactivatedAccount', 'accountLocked', 'unverifiedAccount']));
    for (const call of [CALLS.signup, CALLS.forgotPassword]) {
      expect(call.errors).toEqual(expect.arrayContaining(['ssoRequired', 'rateLimitExeeded', 'reCaptchaFail']));
    }
    expect(CALLS.resetPassword.errors).toEqual(expect.arrayContaining(['recentPassword', 'invalidToken', 'tokenExpired']));
    expect(CALLS.setupAccount.errors).toEqual(expect.arrayContaining(['invalidToken', 'tokenExpired']));
    expect(CALLS.verifyNewEmail.errors).toContain('accountNotSetUp');
    expect(CALLS.ssoStart.errors).toContain('ssoNotRecognized');
    expect(CALLS.exchangeSSOTransferToken.errors).toContain('ssoTransferFailed');
  });

  it('gives every code of the registry to some call', () => {
    const answered = new Set(entries.flatMap(([, call]) => callErrors(call)));
    expect(ERROR_CODES.filter((code) => !answered.has(code))).toEqual([]);
  });

  it('sends every code in the one error shape, with its registry status', () => {
    for (const code of ERROR_CODES) {
      expect(ErrorBody.parse({ errorMessage: code })).toEqual({ errorMessage: code });
      expect(ERROR_STATUS[code]).toBeGreaterThanOrEqual(400);
    }
    expect(ErrorBody.safeParse({ errorMessage: 'somethingNew' }).success).toBe(false);
  });
});
