// Configuration of the judge process from environment variables, with errors naming the variable:
// OWRL_JUDGE_VERSION, OWRL_JUDGE_CONCURRENCY (64 with verifiers only or a model on a GPU, 8 with
// a model on the CPU or an API), OWRL_JUDGE_TIMEOUT_MS, and the judge model: OWRL_JUDGE_MODEL
// (model folder; none = verifiers only), OWRL_JUDGE_DEVICE (auto | cuda | webgpu | cpu),
// OWRL_JUDGE_THRESHOLD, OWRL_JUDGE_WORKERS, OWRL_JUDGE_PREPARE_WORKERS, OWRL_JUDGE_THREADS,
// OWRL_JUDGE_MAX_BATCH, OWRL_JUDGE_BATCH_TOKENS (both default by device),
// OWRL_JUDGE_SHADOW (default true when a model is set); or the judge model
// behind an OpenAI-compatible API: OWRL_JUDGE_BACKEND (onnx | api; default: whichever of
// OWRL_JUDGE_MODEL / OWRL_JUDGE_API_URL is set), OWRL_JUDGE_API_URL, OWRL_JUDGE_API_MODEL,
// OWRL_JUDGE_API_KEY (never logged), OWRL_JUDGE_API_CONCURRENCY, OWRL_JUDGE_API_RETRIES,
// OWRL_JUDGE_API_IMAGE, OWRL_JUDGE_API_LOGPROBS, OWRL_JUDGE_API_TOP_LOGPROBS,
// OWRL_JUDGE_API_MAX_TOKENS, OWRL_JUDGE_API_MAX_PROMPT_CHARS, OWRL_JUDGE_API_EXTRA_BODY,
// OWRL_JUDGE_API_VERSION; OWRL_JUDGE_THRESHOLD and OWRL_JUDGE_SHADOW apply to both backends.
// OWRL_VERIFY_HOSTS: host[:port] list that site-state verifiers may be fetched from (default: only
// each task's own start host).
// NATS_*, OWRL_LOG_LEVEL and OWRL_METRICS_PORT are read by the startup path (@owrl/service).
import { ConfigError, envBool, envInt, envList, envNumber, envOneOf, envString, type Env } from '@owrl/core';

export type JudgeDeviceSetting = 'auto' | 'cuda' | 'webgpu' | 'cpu';

export interface JudgeModelConfig {
  dir: string;
  device: JudgeDeviceSetting;
  /** P(yes) threshold; undefined = the model folder's. */
  threshold: number | undefined;
  /** Inference workers (model copies) on the CPU; a GPU holds one. */
  workers: number;
  /** Prompt preparation threads beside the model; undefined = the device's default (GPU 2, CPU 0). */
  prepareWorkers: number | undefined;
  /** onnxruntime intra-op threads per worker; 0 = cores / workers. */
  threads: number;
  /** Rows per forward pass; undefined = the device's default (CPU 8, GPU 32). */
  maxBatch: number | undefined;
  /** Padded positions per forward pass; undefined = the device's default (16384 on the CPU and on a GPU). */
  batchTokens: number | undefined;
  /** Judge verified tasks with the model too, as a shadow measured against the verifier. */
  shadow: boolean;
}

/** The judge model served behind an OpenAI-compatible chat completions API. */
export interface JudgeApiConfig {
  url: string;
  model: string;
  /** '' = no Authorization header. Keep it out of logs (redactConfig). */
  apiKey: string;
  /** P(yes) threshold; undefined = 0.5. */
  threshold: number | undefined;
  concurrency: number;
  retries: number;
  /** Send the final screenshot as an image part (vision-language judges). */
  image: boolean;
  logprobs: boolean;
  topLogprobs: number;
  maxTokens: number;
  maxPromptChars: number;
  /** Merged into every request body. */
  extraBody: Record<string, unknown> | undefined;
  /** '' = api:<model>#<prompt hash>. */
  version: string;
  shadow: boolean;
}

export interface JudgeConfig {
  judgeVersion: string;
  /** Trajectories judged at once; undefined = by backend and device (concurrencyDefault). */
  concurrency: number | undefined;
  timeoutMs: number;
  /** The ONNX judge model (backend onnx). */
  model: JudgeModelConfig | undefined;
  /** The judge model behind an API (backend api). */
  api: JudgeApiConfig | undefined;
  /** Hosts site-state checks may be fetched from (OWRL_VERIFY_HOSTS); undefined = each task's own start host only. */
  verifyHosts?: string[];
}

/** `cfg` fit for a log line: the API key replaced by whether one is set. */
export function redactConfig(cfg: JudgeConfig): Record<string, unknown> {
  if (cfg.api === undefined) return { ...cfg };
  const { apiKey, ...api } = cfg.api;
  return { ...cfg, api: { ...api, apiKey: apiKey === '' ? '(none)' : '(set)' } };
}

function threshold(env: Env): number | undefined {
  const t = env['OWRL_JUDGE_THRESHOLD'] ? envNumber('OWRL_JUDGE_THRESHOLD', 0.5, env) : undefined;
  if (t !== undefined && !(t >= 0 && t <= 1)) throw new ConfigError('OWRL_JUDGE_THRESHOLD', `OWRL_JUDGE_THRESHOLD=${t} must be within [0, 1]`);
  return t;
}

function intWithin(name: string, def: number, min: number, max: number, env: Env): number {
  const v = envInt(name, def, env, min);
  if (v > max) throw new ConfigError(name, `${name}=${v} must be at most ${max}`);
  return v;
}

function readApi(env: Env): JudgeApiConfig {
  const url = envString('OWRL_JUDGE_API_URL', '', env);
  if (url === '') throw new ConfigError('OWRL_JUDGE_API_URL', 'OWRL_JUDGE_API_URL is required with OWRL_JUDGE_BACKEND=api (e.g. http://vllm:8000/v1)');
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (parsed === undefined || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) {
    throw new ConfigError('OWRL_JUDGE_API_URL', `OWRL_JUDGE_API_URL=${JSON.stringify(url)} must be an http(s) URL`);
  }
  const model = envString('OWRL_JUDGE_API_MODEL', '', env).trim();
  if (model === '') throw new ConfigError('OWRL_JUDGE_API_MODEL', 'OWRL_JUDGE_API_MODEL is required with OWRL_JUDGE_BACKEND=api (the model name the server serves)');
  const extraRaw = envString('OWRL_JUDGE_API_EXTRA_BODY', '', env);
  let extraBody: Record<string, unknown> | undefined;
  if (extraRaw !== '') {
    let v: unknown;
    try {
      v = JSON.parse(extraRaw);
    } catch (e) {
      throw new ConfigError('OWRL_JUDGE_API_EXTRA_BODY', `OWRL_JUDGE_API_EXTRA_BODY is not JSON: ${(e as Error).message}`);
    }
    if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new ConfigError('OWRL_JUDGE_API_EXTRA_BODY', `OWRL_JUDGE_API_EXTRA_BODY must be a JSON object, got ${extraRaw}`);
    for (const k of ['model', 'messages']) {
      if (k in v) throw new ConfigError('OWRL_JUDGE_API_EXTRA_BODY', `OWRL_JUDGE_API_EXTRA_BODY must not set "${k}"`);
    }
    extraBody = v as Record<string, unknown>;
  }
  return {
    url,
    model,
    apiKey: envString('OWRL_JUDGE_API_KEY', '', env),
    threshold: threshold(env),
    concurrency: envInt('OWRL_JUDGE_API_CONCURRENCY', 8, env, 1),
    retries: envInt('OWRL_JUDGE_API_RETRIES', 3, env, 0),
    image: envBool('OWRL_JUDGE_API_IMAGE', true, env),
    logprobs: envBool('OWRL_JUDGE_API_LOGPROBS', true, env),
    topLogprobs: intWithin('OWRL_JUDGE_API_TOP_LOGPROBS', 20, 1, 20, env),
    maxTokens: envInt('OWRL_JUDGE_API_MAX_TOKENS', 1, env, 1),
    maxPromptChars: envInt('OWRL_JUDGE_API_MAX_PROMPT_CHARS', 60_000, env, 1),
    extraBody,
    version: envString('OWRL_JUDGE_API_VERSION', '', env),
    shadow: envBool('OWRL_JUDGE_SHADOW', true, env),
  };
}

/** An integer setting whose default is decided later (by device): undefined when unset. */
function optionalInt(name: string, min: number, env: Env): number | undefined {
  return (env[name] ?? '') === '' ? undefined : envInt(name, min, env, min);
}

/**
 * Trajectories judged at once when OWRL_JUDGE_CONCURRENCY is unset. Verifiers only: a trajectory
 * is judged in microseconds and the slot waits mostly on the bus (publish, ack), so many are held
 * at once. A model bounds it to what the model serves: on the CPU a pass of 8; on a GPU enough to
 * fill two passes of `maxBatch` rows, one running and one prepared.
 */
export function concurrencyDefault(backend: 'none' | 'api' | 'cpu' | 'gpu', maxBatch = 8): number {
  if (backend === 'none') return 64;
  if (backend === 'gpu') return Math.max(64, 2 * maxBatch);
  return 8;
}

/** Configuration from environment variables. @throws ConfigError naming the variable. */
export function readConfig(env: Env): JudgeConfig {
  const modelDir = envString('OWRL_JUDGE_MODEL', '', env);
  const apiUrl = envString('OWRL_JUDGE_API_URL', '', env);
  const backendRaw = envString('OWRL_JUDGE_BACKEND', '', env);
  if (backendRaw === '' && modelDir !== '' && apiUrl !== '') {
    throw new ConfigError('OWRL_JUDGE_BACKEND', 'both OWRL_JUDGE_MODEL and OWRL_JUDGE_API_URL are set: choose one with OWRL_JUDGE_BACKEND=onnx|api');
  }
  const backend = backendRaw === '' ? (apiUrl !== '' ? 'api' : modelDir !== '' ? 'onnx' : 'none') : envOneOf('OWRL_JUDGE_BACKEND', 'onnx', ['onnx', 'api'] as const, env);
  if (backend === 'onnx' && modelDir === '') throw new ConfigError('OWRL_JUDGE_MODEL', 'OWRL_JUDGE_MODEL (a model folder) is required with OWRL_JUDGE_BACKEND=onnx');
  let model: JudgeModelConfig | undefined;
  if (backend === 'onnx') {
    model = {
      dir: modelDir,
      device: envOneOf('OWRL_JUDGE_DEVICE', 'auto', ['auto', 'cuda', 'webgpu', 'cpu'] as const, env),
      threshold: threshold(env),
      workers: envInt('OWRL_JUDGE_WORKERS', 1, env, 1),
      prepareWorkers: optionalInt('OWRL_JUDGE_PREPARE_WORKERS', 0, env),
      threads: envInt('OWRL_JUDGE_THREADS', 0, env, 0),
      maxBatch: optionalInt('OWRL_JUDGE_MAX_BATCH', 1, env),
      batchTokens: optionalInt('OWRL_JUDGE_BATCH_TOKENS', 1, env),
      shadow: envBool('OWRL_JUDGE_SHADOW', true, env),
    };
  }
  return {
    judgeVersion: envString('OWRL_JUDGE_VERSION', 'verifier-1', env),
    concurrency: optionalInt('OWRL_JUDGE_CONCURRENCY', 1, env),
    // An API call may need a retry or two inside the budget: a longer default there.
    timeoutMs: envInt('OWRL_JUDGE_TIMEOUT_MS', backend === 'api' ? 30_000 : 10_000, env, 1),
    model,
    api: backend === 'api' ? readApi(env) : undefined,
    ...(env['OWRL_VERIFY_HOSTS'] !== undefined ? { verifyHosts: envList('OWRL_VERIFY_HOSTS', [], env) } : {}),
  };
}
