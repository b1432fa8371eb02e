// The actor service as a library (for embedding and tests); the process entry is main.ts.
export * from './actor.js';
export * from './config.js';
export * from './policy-holder.js';
export * from './trajectory-builder.js';
export * from './artifact-fetch.js';
export * from './policy-backends.js';
