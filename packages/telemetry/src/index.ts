// Observability shared by the services: injected logger interface (pino binding for mains) and
// prom-client registries with an HTTP exporter.
export * from './logger.js';
export * from './metrics.js';
