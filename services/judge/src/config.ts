// Configuration of the judge process from environment variables, with errors naming the variable:
// OWRL_JUDGE_VERSION, OWRL_JUDGE_CONCURRENCY, OWRL_JUDGE_TIMEOUT_MS, and the judge model: OWRL_JUDGE_MODEL (model folder; none = verifiers only), OWRL_JUDGE_DEVICE
// (auto | cuda | cpu), OWRL_JUDGE_THRESHOLD, OWRL_JUDGE_WORKERS, OWRL_JUDGE_THREADS,
// OWRL_JUDGE_MAX_BATCH, OWRL_JUDGE_SHADOW (default true when a model is set). NATS_*,
// OWRL_LOG_LEVEL and OWRL_METRICS_PORT are read by the startup path (@owrl/service).
import { ConfigError, envBool, envInt, envNumber, envOneOf, envString, type Env } from '@owrl/core';

export type JudgeDeviceSetting = 'auto' | 'cuda' | 'cpu';

export interface JudgeModelConfig {
  dir: string;
  device: JudgeDeviceSetting;
  /** P(yes) threshold; undefined = the model folder's. */
  threshold: number | undefined;
  workers: number;
  /** onnxruntime intra-op threads per worker; 0 = cores / workers. */
  threads: number;
  maxBatch: number;
  /** Judge verified tasks with the model too, as a shadow measured against the verifier. */
  shadow: boolean;
}

export interface JudgeConfig {
  judgeVersion: string;
  concurrency: number;
  timeoutMs: number;
  /** The judge model, when OWRL_JUDGE_MODEL is set. */
  model: JudgeModelConfig | undefined;
}

/** Configuration from environment variables. @throws ConfigError naming the variable. */
export function readConfig(env: Env): JudgeConfig {
  const modelDir = envString('OWRL_JUDGE_MODEL', '', env);
  let model: JudgeModelConfig | undefined;
  if (modelDir !== '') {
    const threshold = env['OWRL_JUDGE_THRESHOLD'] ? envNumber('OWRL_JUDGE_THRESHOLD', 0.5, env) : undefined;
    if (threshold !== undefined && !(threshold >= 0 && threshold <= 1)) {
      throw new ConfigError('OWRL_JUDGE_THRESHOLD', `OWRL_JUDGE_THRESHOLD=${threshold} must be within [0, 1]`);
    }
    model = {
      dir: modelDir,
      device: envOneOf('OWRL_JUDGE_DEVICE', 'auto', ['auto', 'cuda', 'cpu'] as const, env),
      threshold,
      workers: envInt('OWRL_JUDGE_WORKERS', 1, env, 1),
      threads: envInt('OWRL_JUDGE_THREADS', 0, env, 0),
      maxBatch: envInt('OWRL_JUDGE_MAX_BATCH', 8, env, 1),
      shadow: envBool('OWRL_JUDGE_SHADOW', true, env),
    };
  }
  return {
    judgeVersion: envString('OWRL_JUDGE_VERSION', 'verifier-1', env),
    concurrency: envInt('OWRL_JUDGE_CONCURRENCY', 8, env, 1),
    timeoutMs: envInt('OWRL_JUDGE_TIMEOUT_MS', 10_000, env, 1),
    model,
  };
}
