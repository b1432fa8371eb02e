// @owrl/service: the one startup path of owrl service mains (settings checked first, signals
// taken at once, logger + meter + /metrics + /healthz + bus bound, orderly shutdown, exit codes).
export { runService, ExitCode, type ServiceSpec, type ServiceContext, type ServiceHandle, type RunOptions } from './run-service.js';
export { Health } from './health.js';
export { readServiceSettings, type ServiceSettings } from './service-settings.js';
