// @owrl/console: the web console over the learner's gRPC API (pages, live updates, control).
export {
  ConsoleApp,
} from './app.js';
export type {
  ConsoleAppOptions,
} from './app.js';
export {
  HttpError,
  HttpErrorCode,
  isHttpError,
} from './errors.js';
export {
  LearnerClient,
  isGrpcError,
} from '@owrl/learner-client';
export {
  loadConsoleConfig,
} from './config.js';
export type {
  ConsoleConfig,
} from './config.js';
