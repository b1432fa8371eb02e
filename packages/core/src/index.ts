// Shared domain types and pure helpers of owrl (no I/O): observations and tool calls, trajectory
// identity, termination classes, recipe defaults, base errors, seeded randomness.
export * from './observation.js';
export * from './ids.js';
export * from './termination.js';
export * from './defaults.js';
export * from './errors.js';
export * from './rng.js';
export * from './env.js';
export * from './logger.js';
export * from './signals.js';
export * from './url.js';
