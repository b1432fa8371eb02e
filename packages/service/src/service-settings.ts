// The settings every service shares, read by the startup path before the service's own:
//   OWRL_LOG_LEVEL     fatal | error | warn | info (default) | debug | trace | silent
//   OWRL_METRICS_PORT  port of /metrics and /healthz (default 0 = not served)
//   OWRL_METRICS_HOST  address it listens on (default 0.0.0.0)
//   NATS_*             the NATS connection (readNatsSettings), for services that use the bus
import { readNatsSettings, type NatsSettings } from '@owrl/bus';
import { ConfigError, envInt, envOneOf, envString, type Env } from '@owrl/core';
import { LOG_LEVELS, type LogLevel } from '@owrl/telemetry';

export interface ServiceSettings {
  logLevel: LogLevel;
  /** 0 = no metrics server. */
  metricsPort: number;
  metricsHost: string;
  /** null for a service without the bus. */
  nats: NatsSettings | null;
}

/** @throws ConfigError naming the variable. */
export function readServiceSettings(env: Env, opts: { bus: boolean }): ServiceSettings {
  const metricsPort = envInt('OWRL_METRICS_PORT', 0, env, 0);
  if (metricsPort > 65535) throw new ConfigError('OWRL_METRICS_PORT', `OWRL_METRICS_PORT=${metricsPort} is not a port (0-65535)`);
  return {
    logLevel: envOneOf('OWRL_LOG_LEVEL', 'info', LOG_LEVELS, env),
    metricsPort,
    metricsHost: envString('OWRL_METRICS_HOST', '0.0.0.0', env),
    nats: opts.bus ? readNatsSettings(env) : null,
  };
}
