// Configuration of the judge process from environment variables (NATS_URL, OWRL_JUDGE_VERSION,
// OWRL_JUDGE_CONCURRENCY, OWRL_JUDGE_TIMEOUT_MS, OWRL_METRICS_PORT), with errors naming the variable.
import { envInt, envString } from '@owrl/core';

export interface JudgeConfig {
  natsUrl: string;
  judgeVersion: string;
  concurrency: number;
  /** 0 = no metrics server. */
  metricsPort: number;
  timeoutMs: number;
}

/** Configuration from environment variables. @throws ConfigError naming the variable. */
export function readConfig(env: Record<string, string | undefined> = process.env): JudgeConfig {
  return {
    natsUrl: envString('NATS_URL', 'nats://127.0.0.1:4222', env),
    judgeVersion: envString('OWRL_JUDGE_VERSION', 'verifier-1', env),
    concurrency: envInt('OWRL_JUDGE_CONCURRENCY', 8, env, 1),
    metricsPort: envInt('OWRL_METRICS_PORT', 0, env, 0),
    timeoutMs: envInt('OWRL_JUDGE_TIMEOUT_MS', 10_000, env, 1),
  };
}
