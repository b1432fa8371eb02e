// Actor configuration from the environment (the shared NATS_*, OWRL_LOG_LEVEL and
// OWRL_METRICS_PORT settings are read by the startup path, @owrl/service). OWRL_POLICY picks the
// policy backend: `pointer` (default, the built-in ONNX policy) or `openai` (a model behind an
// OpenAI-compatible endpoint, configured by OWRL_POLICY_BASE_URL, OWRL_POLICY_MODEL and the other
// OWRL_POLICY_* settings of @owrl/llm-policy, plus OWRL_POLICY_LOAD_WEIGHTS, all checked here,
// before the actor starts). OWRL_SYNTHETIC=1 runs synthetic episodes instead of Chromium (a
// stand-in for many browser slots, for scale tests: synthetic-episodes.ts), shaped by
// OWRL_SYNTHETIC_SPEEDUP, _STEP_MEDIAN_S, _STEP_SIGMA, _MIN_STEPS, _SHOT_BYTES, _ENV_ERROR_RATE and
// _TASK_TIMEOUT_S, and OWRL_SYNTHETIC_STAGGER_FIRST (the first N episodes wait only the rest of
// one under way: a fleet started at once runs at its steady rate from the start; 0 = off).
import os from 'node:os';
import { ConfigError, envBool, envInt, envList, envNumber, envOneOf, envString, type Env } from '@owrl/core';
import { openAIPolicyConfigFromEnv, type OpenAIPolicyConfig } from '@owrl/llm-policy';
import { SYNTHETIC_DEFAULTS, type SyntheticOptions } from './synthetic-episodes.js';

export const POLICY_BACKENDS = ['pointer', 'openai'] as const;
export type PolicyBackendName = (typeof POLICY_BACKENDS)[number];

export interface ActorConfig {
  actorId: string;
  slots: number;
  allowHosts: string[];
  chromiumPath: string;
  policyWaitMs: number;
  heartbeatMs: number;
  maxEpisodesPerBrowser: number;
  maxPayloadBytes: number;
  /** Keep every step's screenshot in the screenshot store (for the console's trajectory viewer). */
  stepScreenshots: boolean;
  /** How long a trajectory publish is retried before the request goes back to the queue. */
  publishRetryMs: number;
  /** First backoff of a publish retry (doubling, at most 10 s). */
  publishBackoffMs: number;
  /**
   * Rollout requests to serve before exiting 0 (OWRL_MAX_EPISODES; 0 or unset: no limit). The
   * one-pod-per-rollout mode runs actors with 1: take one request, publish, ack, drain, exit.
   */
  maxEpisodes?: number;
  /** Policy backend (OWRL_POLICY); default pointer. */
  policy?: PolicyBackendName;
  /** The openai backend's settings (OWRL_POLICY=openai). */
  openai?: OpenAIPolicyConfig;
  /**
   * OWRL_POLICY_LOAD_WEIGHTS (default on with OWRL_POLICY_ENGINE vllm or sglang): the actor makes
   * the serving engine load each published version before its requests name it.
   */
  loadWeights?: boolean;
  /** OWRL_SYNTHETIC=1: synthetic episodes instead of a browser (scale tests), with their model. */
  synthetic?: SyntheticOptions;
}

function syntheticSettings(env: Env): SyntheticOptions {
  const d = SYNTHETIC_DEFAULTS;
  const num = (name: string, def: number, min: number, max = Infinity): number => {
    const v = envNumber(name, def, env, { min });
    if (v > max) throw new ConfigError(name, `${name}=${v} must be at most ${max}`);
    return v;
  };
  const speedup = num('OWRL_SYNTHETIC_SPEEDUP', d.speedup, 0);
  const stepMedianS = num('OWRL_SYNTHETIC_STEP_MEDIAN_S', d.stepMedianS, 0);
  const taskTimeoutS = num('OWRL_SYNTHETIC_TASK_TIMEOUT_S', d.taskTimeoutS, 0);
  for (const [name, v] of [['OWRL_SYNTHETIC_SPEEDUP', speedup], ['OWRL_SYNTHETIC_STEP_MEDIAN_S', stepMedianS], ['OWRL_SYNTHETIC_TASK_TIMEOUT_S', taskTimeoutS]] as const) {
    if (v <= 0) throw new ConfigError(name, `${name}=${v} must be above 0`);
  }
  return {
    speedup,
    stepMedianS,
    taskTimeoutS,
    stepSigma: num('OWRL_SYNTHETIC_STEP_SIGMA', d.stepSigma, 0, 5),
    minSteps: envInt('OWRL_SYNTHETIC_MIN_STEPS', d.minSteps, env, 1),
    shotBytes: envInt('OWRL_SYNTHETIC_SHOT_BYTES', d.shotBytes, env, 0),
    envErrorRate: num('OWRL_SYNTHETIC_ENV_ERROR_RATE', d.envErrorRate, 0, 1),
    staggerFirst: envInt('OWRL_SYNTHETIC_STAGGER_FIRST', d.staggerFirst, env, 0),
  };
}

function openaiSettings(env: Env): { openai: OpenAIPolicyConfig; loadWeights: boolean } {
  const openai = openAIPolicyConfigFromEnv(env);
  const canLoad = openai.engine === 'vllm' || openai.engine === 'sglang';
  const loadWeights = envBool('OWRL_POLICY_LOAD_WEIGHTS', canLoad, env);
  if (loadWeights && !canLoad) {
    throw new ConfigError('OWRL_POLICY_LOAD_WEIGHTS', `OWRL_POLICY_LOAD_WEIGHTS is on but OWRL_POLICY_ENGINE=${openai.engine} has no weight-loading API owrl knows (vllm, sglang)`);
  }
  return { openai, loadWeights };
}

/** @throws ConfigError naming the variable. */
export function loadActorConfig(env: Env): ActorConfig {
  const policy = envOneOf('OWRL_POLICY', 'pointer', POLICY_BACKENDS, env);
  return {
    policy,
    ...(policy === 'openai' ? openaiSettings(env) : {}),
    actorId: envString('OWRL_ACTOR_ID', `${os.hostname()}-${process.pid}`, env),
    slots: envInt('OWRL_SLOTS', 4, env, 1),
    allowHosts: envList('OWRL_ALLOW_HOSTS', [], env),
    chromiumPath: envString('OWRL_CHROMIUM', '/usr/bin/chromium', env),
    policyWaitMs: envInt('OWRL_POLICY_WAIT_S', 120, env, 0) * 1000,
    heartbeatMs: envInt('OWRL_HEARTBEAT_S', 10, env, 1) * 1000,
    maxEpisodesPerBrowser: envInt('OWRL_MAX_EPISODES_PER_BROWSER', 200, env, 1),
    maxPayloadBytes: envInt('OWRL_MAX_PAYLOAD', 1024 * 1024, env, 1024),
    stepScreenshots: envBool('OWRL_STEP_SCREENSHOTS', true, env),
    publishRetryMs: envInt('OWRL_PUBLISH_RETRY_S', 300, env, 0) * 1000,
    publishBackoffMs: envInt('OWRL_PUBLISH_BACKOFF_MS', 500, env, 1),
    maxEpisodes: envInt('OWRL_MAX_EPISODES', 0, env, 0),
    ...(envBool('OWRL_SYNTHETIC', false, env) ? { synthetic: syntheticSettings(env) } : {}),
  };
}
