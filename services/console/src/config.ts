// Console configuration from the environment (NATS_*, OWRL_LOG_LEVEL and OWRL_METRICS_PORT are
// read by the startup path, @owrl/service).
import { envInt, envSecret, envString, type Env, type Secret } from '@owrl/core';

export interface ConsoleConfig {
  /** Learner gRPC address host:port. */
  learner: string;
  host: string;
  port: number;
  /** Token for blacklist edits ('' = refused); pause/resume tokens go to the learner, which checks them. */
  controlToken: Secret;
}

/** @throws ConfigError naming the variable. */
export function loadConsoleConfig(env: Env): ConsoleConfig {
  return {
    learner: envString('OWRL_LEARNER', '127.0.0.1:50051', env),
    host: envString('OWRL_CONSOLE_HOST', '127.0.0.1', env),
    port: envInt('OWRL_CONSOLE_PORT', 8090, env, 0),
    controlToken: envSecret('OWRL_CONTROL_TOKEN', env),
  };
}
