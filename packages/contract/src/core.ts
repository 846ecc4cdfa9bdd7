/**
 * The contract without its zod schemas: plain values and functions the browser needs, so the
 * sign-in bundle does not carry zod (the service parses every request and answer through the
 * schemas; the page never does). Types from the schema modules are re-exported type-only, which
 * costs nothing at run time.
 */
export * from './environments.js';
export * from './errors.js';
export * from './flags.js';
export * from './i18n.js';
export * from './page.js';
export * from './paths.js';
export * from './redirect.js';
export * from './routes.js';
export * from './storage.js';
export * from './validation.js';
export type { SessionUser, CallDefinition, ErrorBody } from './calls.js';
export type { InlineDictionary, RuntimeConfig } from './runtime-config.js';
