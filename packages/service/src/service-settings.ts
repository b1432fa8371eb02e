// The settings every service shares, read by the startup path before the service's own:
//   OWRL_LOG_LEVEL     fatal | error | warn | info (default) | debug | trace | silent
//   OWRL_METRICS_PORT  port of /metrics and /healthz (default 0 = not served)
//   OWRL_METRICS_HOST  address it listens on (default 0.0.0.0)
//   NATS_*             the NATS connection (readNatsSettings), for services that use the bus
//   OWRL_ACTORS_ACK_WAIT_S, OWRL_JUDGE_ACK_WAIT_S   ack_wait of the `actors` and `judge` consumers
//                      (default 60 s: how long a SIGKILLed worker's messages wait before they
//                      are redelivered); every service that declares the topology must agree
//   OWRL_ACTORS_MAX_ACK_PENDING, OWRL_JUDGE_MAX_ACK_PENDING   max_ack_pending of those consumers:
//                      the rollouts (trajectories) out at once; the actors' must be at least the
//                      fleet's browser slots (default 256 and 1024); every service must agree
import { readNatsSettings, type NatsSettings, type TopologyOptions } from '@owrl/bus';
import { ConfigError, envInt, envOneOf, envString, type Env } from '@owrl/core';
import { LOG_LEVELS, type LogLevel } from '@owrl/telemetry';

export interface ServiceSettings {
  logLevel: LogLevel;
  /** 0 = no metrics server. */
  metricsPort: number;
  metricsHost: string;
  /** null for a service without the bus. */
  nats: NatsSettings | null;
  /** Topology options every service passes to ensureTopology (only those set in the environment). */
  topology: Pick<TopologyOptions, 'actorsAckWaitMs' | 'judgeAckWaitMs' | 'actorsMaxAckPending' | 'judgeMaxAckPending'>;
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
    topology: {
      ...(env['OWRL_ACTORS_ACK_WAIT_S'] !== undefined ? { actorsAckWaitMs: envInt('OWRL_ACTORS_ACK_WAIT_S', 60, env, 2) * 1000 } : {}),
      ...(env['OWRL_JUDGE_ACK_WAIT_S'] !== undefined ? { judgeAckWaitMs: envInt('OWRL_JUDGE_ACK_WAIT_S', 60, env, 2) * 1000 } : {}),
      ...(env['OWRL_ACTORS_MAX_ACK_PENDING'] !== undefined ? { actorsMaxAckPending: envInt('OWRL_ACTORS_MAX_ACK_PENDING', 256, env, 1) } : {}),
      ...(env['OWRL_JUDGE_MAX_ACK_PENDING'] !== undefined ? { judgeMaxAckPending: envInt('OWRL_JUDGE_MAX_ACK_PENDING', 1024, env, 1) } : {}),
    },
  };
}
