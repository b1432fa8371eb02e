// Observability bindings for service mains: the pino Logger (flushable, secrets redacted), the
// prom-client Meter, and the /metrics + /healthz HTTP server. Libraries take the Logger and Meter
// interfaces of @owrl/core instead; only @owrl/service calls these.
export * from './logger.js';
export * from './prom-meter.js';
export * from './metrics-server.js';
