import { ErrorBody } from '@foyer/contract';

/**
 * Error statuses every route of a kind may answer besides its own, declared so the OpenAPI
 * document is complete and each answer is serialized through the contract's ErrorBody.
 */
export const READ_ERRORS = { 500: ErrorBody, 503: ErrorBody } as const;

/**
 * State-changing calls: bad input (400), XSRF (403), body too large (413), content type (415).
 * Both kinds answer 503 while the database is unavailable (decision 0011).
 */
export const WRITE_ERRORS = { 400: ErrorBody, 403: ErrorBody, 413: ErrorBody, 415: ErrorBody, 500: ErrorBody, 503: ErrorBody } as const;
