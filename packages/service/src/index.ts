// @owrl/service: the one startup path of owrl service mains (settings checked first, signals
// taken at once, logger + meter + /metrics + /healthz + bus bound, orderly shutdown, exit codes).
export {
  runService,
  ExitCode,
} from './run-service.js';
export type {
  ServiceSpec,
  ServiceContext,
  ServiceHandle,
  RunOptions,
} from './run-service.js';
export {
  Health,
} from './health.js';
export {
  readServiceSettings,
} from './service-settings.js';
export type {
  ServiceSettings,
} from './service-settings.js';
