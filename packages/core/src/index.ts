// Shared domain types and pure helpers of owrl (no I/O): observations and tool calls, trajectory
// identity, termination classes and reasons, recipe defaults, base errors, seeded randomness,
// configuration from the environment, and the logger and meter interfaces.
export * from './observation.js';
export * from './ids.js';
export * from './termination.js';
export * from './defaults.js';
export * from './errors.js';
export * from './rng.js';
export * from './env.js';
export * from './secret.js';
export * from './logger.js';
export * from './meter.js';
export * from './memory-meter.js';
export * from './url.js';
