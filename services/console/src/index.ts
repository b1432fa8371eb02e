// @owrl/console: the web console over the learner's gRPC API (pages, live updates, control).
export { ConsoleApp, type ConsoleAppOptions } from './app.js';
export { LearnerClient, isGrpcError } from '@owrl/learner-client';
export { loadConsoleConfig, type ConsoleConfig } from './config.js';
