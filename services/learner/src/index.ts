// The learner service as a library (for embedding and tests); the process entry is main.ts.
export * from './learner.js';
export * from './config.js';
export * from './round-ledger.js';
export * from './scheduler.js';
export * from './run-state-store.js';
export * from './grpc-server.js';
export * from './artifact-server.js';
export * from './checkpoint.js';
