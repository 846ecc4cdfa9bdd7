export * from './core.js';
export * from './client-errors.js';
export * from './calls.js';
export * from './fields.js';
export * from './runtime-config.js';
export * from './ofrep.js';
export * from './third-party.js';
// core.ts re-exports these names type-only; the explicit exports make them values here again
// (an explicit export wins over `export *`).
export { ErrorBody, SessionUser, type CallDefinition } from './calls.js';
export { InlineDictionary, RuntimeConfig } from './runtime-config.js';
