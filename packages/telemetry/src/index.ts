// Observability bindings for service mains: the pino Logger (flushable, secrets redacted), the
// prom-client Meter, and the /metrics + /healthz HTTP server. Libraries take the Logger and Meter
// interfaces of @owrl/core instead; only @owrl/service calls these.
export {
  CENSOR,
  LOG_LEVELS,
  createLogger,
  redactSecrets,
} from './logger.js';
export type {
  CreateLoggerOptions,
  LogLevel,
  ServiceLogger,
} from './logger.js';
export {
  PromMeter,
} from './prom-meter.js';
export type {
  PromMeterOptions,
} from './prom-meter.js';
export {
  startMetricsServer,
} from './metrics-server.js';
export type {
  HealthProbe,
  MetricsServer,
  MetricsSource,
} from './metrics-server.js';
