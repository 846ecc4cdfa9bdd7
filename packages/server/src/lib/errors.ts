import { ERROR_STATUS, type ErrorCode } from '@foyer/contract';

/**
 * The one error type services throw. The wire answer is `{ errorMessage: code }` with the status
 * the contract gives the code (ERROR_STATUS), so a status never drifts from its code.
 */
export class AppError extends Error {
  override name = 'AppError';
  readonly code: ErrorCode;
  readonly statusCode: number;
  /** `ssoRequired` only: the address SSO sign-in should fill in (contract ErrorBody.email). */
  readonly email: string | undefined;
  /** `invalidRequest` only: the fields that failed, as a schema failure names them. */
  readonly fields: string[] | undefined;

  constructor(code: ErrorCode, options?: { cause?: unknown; email?: string; fields?: string[] }) {
    super(code, options);
    this.code = code;
    this.statusCode = ERROR_STATUS[code];
    this.email = options?.email;
    this.fields = options?.fields;
  }
}

export function isAppError(value: unknown): value is AppError {
  return value instanceof AppError;
}
