export * from './core.js';
export * from './calls.js';
export * from './fields.js';
export * from './runtime-config.js';
// core.ts re-exports these names type-only; the explicit exports make them values here again
// (an explicit export wins over `export *`).
export { ErrorBody, SessionUser, type CallDefinition } from './calls.js';
export { InlineDictionary, RuntimeConfig } from './runtime-config.js';
