// Observability bindings for service mains: the pino Logger (flushable, secrets redacted), the
// prom-client Meter, and the /metrics + /healthz HTTP server. Libraries take the Logger and Meter
// interfaces of @owrl/core instead; only @owrl/service calls these.
export {
  CENSOR,
  LOG_LEVELS,
  createLogger,
  redactSecrets,
  silentLogger,
  type CreateLoggerOptions,
  type LogLevel,
  type Logger,
  type ServiceLogger,
} from './logger.js';
export { PromMeter, type PromMeterOptions } from './prom-meter.js';
export {
  startMetricsServer,
  type HealthProbe,
  type MetricsServer,
  type MetricsSource,
} from './metrics-server.js';
