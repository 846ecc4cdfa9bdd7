export * from './core.js';
export * from './calls.js';
export * from './fields.js';
export * from './runtime-config.js';
