// Configuration of the `openai` policy from environment variables (OWRL_POLICY_*), validated
// with errors that name the variable. The API key is a Secret: the config can be logged whole.
import { ConfigError, envBool, envInt, envNumber, envOneOf, envSecret, envString } from '@owrl/core';
import { servedNameProblem } from './adapter-naming.js';
import type { OpenAIPolicyOptions } from './openai-policy.js';
import { DEFAULT_SAMPLER, defaultLogprobMode, LOGPROB_MODES, samplerProblem, type SamplerSettings } from './sampling.js';
import type { CoordinateSystem } from './tool-schemas.js';

type Env = Record<string, string | undefined>;

/** The options of an OpenAIPolicy except the per-version ones (adapter, version, logger). */
export type OpenAIPolicyConfig = Omit<OpenAIPolicyOptions, 'version' | 'logger' | 'adapter'>;

/** `relative:1000` (a 0..1000 grid, Qwen3-VL) or `pixels`. */
export function parseCoords(name: string, raw: string): CoordinateSystem {
  if (raw === 'pixels') return { kind: 'pixels' };
  const m = /^relative(?::(\d+(?:\.\d+)?))?$/.exec(raw);
  const scale = m ? Number(m[1] ?? 1000) : NaN;
  if (!m || !(scale > 0)) throw new ConfigError(name, `${name}=${JSON.stringify(raw)} must be "pixels" or "relative[:scale]" (e.g. relative:1000)`);
  return { kind: 'relative', scale };
}

/**
 * Reads OWRL_POLICY_BASE_URL (required), OWRL_POLICY_MODEL (required), OWRL_POLICY_API_KEY,
 * OWRL_POLICY_ENGINE (vllm | sglang | openai), OWRL_POLICY_TIMEOUT_MS, OWRL_POLICY_RETRIES,
 * OWRL_POLICY_BACKOFF_MS, OWRL_POLICY_MAX_TOKENS, the sampler (OWRL_POLICY_TEMPERATURE 1,
 * OWRL_POLICY_TOP_P 1, OWRL_POLICY_TOP_K -1, OWRL_POLICY_MIN_P 0, OWRL_POLICY_REPETITION_PENALTY 1,
 * OWRL_POLICY_PRESENCE_PENALTY 0, OWRL_POLICY_FREQUENCY_PENALTY 0: set on every request, so the
 * model's generation config never fills them in), OWRL_POLICY_LOGPROBS_MODE (raw | temperature |
 * processed: what the engine was started to report; default per engine),
 * OWRL_POLICY_HISTORY (full | hide_thinking | action_only), OWRL_POLICY_SCREENSHOTS (K),
 * OWRL_POLICY_COORDS, OWRL_POLICY_TOOLS (native | prompt), OWRL_POLICY_MAX_ELEMENTS,
 * OWRL_POLICY_LOGPROBS.
 * @throws ConfigError naming the variable.
 */
export function openAIPolicyConfigFromEnv(env: Env): OpenAIPolicyConfig {
  const baseUrl = envString('OWRL_POLICY_BASE_URL', '', env);
  if (baseUrl === '') throw new ConfigError('OWRL_POLICY_BASE_URL', 'OWRL_POLICY_BASE_URL is not set: give the OpenAI-compatible API base, e.g. http://vllm:8000/v1');
  if (!/^https?:\/\/[^/]/.test(baseUrl)) throw new ConfigError('OWRL_POLICY_BASE_URL', `OWRL_POLICY_BASE_URL=${JSON.stringify(baseUrl)} must be an http(s) URL`);
  const model = envString('OWRL_POLICY_MODEL', '', env);
  if (model === '') throw new ConfigError('OWRL_POLICY_MODEL', 'OWRL_POLICY_MODEL is not set: name the served model, e.g. Qwen/Qwen3-VL-4B-Instruct');
  const apiKey = envSecret('OWRL_POLICY_API_KEY', env);
  const engine = envOneOf('OWRL_POLICY_ENGINE', 'vllm', ['vllm', 'sglang', 'openai'] as const, env);
  const nameIssue = servedNameProblem(engine, model);
  if (nameIssue) throw new ConfigError('OWRL_POLICY_MODEL', `OWRL_POLICY_MODEL=${JSON.stringify(model)}: ${nameIssue}`);
  const sampler: SamplerSettings = {
    temperature: envNumber('OWRL_POLICY_TEMPERATURE', DEFAULT_SAMPLER.temperature, env, { min: 0 }),
    topP: envNumber('OWRL_POLICY_TOP_P', DEFAULT_SAMPLER.topP, env),
    topK: envNumber('OWRL_POLICY_TOP_K', DEFAULT_SAMPLER.topK, env, { integer: true, min: -1 }),
    minP: envNumber('OWRL_POLICY_MIN_P', DEFAULT_SAMPLER.minP, env, { min: 0 }),
    repetitionPenalty: envNumber('OWRL_POLICY_REPETITION_PENALTY', DEFAULT_SAMPLER.repetitionPenalty, env),
    presencePenalty: envNumber('OWRL_POLICY_PRESENCE_PENALTY', DEFAULT_SAMPLER.presencePenalty, env),
    frequencyPenalty: envNumber('OWRL_POLICY_FREQUENCY_PENALTY', DEFAULT_SAMPLER.frequencyPenalty, env),
  };
  const logprobMode = envOneOf('OWRL_POLICY_LOGPROBS_MODE', defaultLogprobMode(engine), LOGPROB_MODES, env);
  const samplerIssue = samplerProblem(sampler, engine, logprobMode);
  if (samplerIssue) throw new ConfigError(samplerVariable(samplerIssue), `OWRL_POLICY_* sampler: ${samplerIssue}`);
  return {
    baseUrl,
    model,
    ...(apiKey.isSet ? { apiKey } : {}),
    engine,
    timeoutMs: envInt('OWRL_POLICY_TIMEOUT_MS', 30_000, env, 1),
    retries: envInt('OWRL_POLICY_RETRIES', 2, env, 0),
    backoffMs: envInt('OWRL_POLICY_BACKOFF_MS', 500, env, 0),
    maxTokens: envInt('OWRL_POLICY_MAX_TOKENS', 1024, env, 1),
    ...sampler,
    logprobMode,
    historyMode: envOneOf('OWRL_POLICY_HISTORY', 'full', ['full', 'hide_thinking', 'action_only'] as const, env),
    screenshots: envInt('OWRL_POLICY_SCREENSHOTS', 1, env, 0),
    coords: parseCoords('OWRL_POLICY_COORDS', envString('OWRL_POLICY_COORDS', 'relative:1000', env)),
    toolsIn: envOneOf('OWRL_POLICY_TOOLS', 'native', ['native', 'prompt'] as const, env),
    maxElements: envInt('OWRL_POLICY_MAX_ELEMENTS', 60, env, 0),
    logprobs: envBool('OWRL_POLICY_LOGPROBS', true, env),
  };
}

/** The variable a sampler problem is about (the first parameter its message names). */
function samplerVariable(problem: string): string {
  const names: Array<[RegExp, string]> = [
    [/^temperature/, 'OWRL_POLICY_TEMPERATURE'],
    [/^top_p/, 'OWRL_POLICY_TOP_P'],
    [/^top_k/, 'OWRL_POLICY_TOP_K'],
    [/^min_p/, 'OWRL_POLICY_MIN_P'],
    [/^repetition_penalty/, 'OWRL_POLICY_REPETITION_PENALTY'],
    [/^presence_penalty/, 'OWRL_POLICY_PRESENCE_PENALTY'],
    [/^frequency_penalty/, 'OWRL_POLICY_FREQUENCY_PENALTY'],
    [/--logprobs-mode/, 'OWRL_POLICY_LOGPROBS_MODE'],
  ];
  return names.find(([re]) => re.test(problem))?.[1] ?? 'OWRL_POLICY_ENGINE';
}
