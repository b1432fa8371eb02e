// Configuration of the `openai` policy from environment variables (OWRL_POLICY_*), validated
// with errors that name the variable. The API key is a Secret: the config can be logged whole.
import { ConfigError, envBool, envInt, envNumber, envOneOf, envSecret, envString } from '@owrl/core';
import type { OpenAIPolicyOptions } from './openai-policy.js';
import type { CoordinateSystem } from './tool-schemas.js';

type Env = Record<string, string | undefined>;

/** The options of an OpenAIPolicy except the per-version ones (model served name, version, logger). */
export type OpenAIPolicyConfig = Omit<OpenAIPolicyOptions, 'version' | 'logger'>;

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
 * OWRL_POLICY_BACKOFF_MS, OWRL_POLICY_MAX_TOKENS, OWRL_POLICY_TEMPERATURE, OWRL_POLICY_TOP_P,
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
  const temperature = envNumber('OWRL_POLICY_TEMPERATURE', 1, env, { min: 0 });
  const topP = env['OWRL_POLICY_TOP_P'] ? envNumber('OWRL_POLICY_TOP_P', 1, env, { min: 0 }) : undefined;
  if (topP !== undefined && topP > 1) throw new ConfigError('OWRL_POLICY_TOP_P', `OWRL_POLICY_TOP_P=${topP} must be within (0, 1]`);
  return {
    baseUrl,
    model,
    ...(apiKey.isSet ? { apiKey } : {}),
    engine: envOneOf('OWRL_POLICY_ENGINE', 'vllm', ['vllm', 'sglang', 'openai'] as const, env),
    timeoutMs: envInt('OWRL_POLICY_TIMEOUT_MS', 30_000, env, 1),
    retries: envInt('OWRL_POLICY_RETRIES', 2, env, 0),
    backoffMs: envInt('OWRL_POLICY_BACKOFF_MS', 500, env, 0),
    maxTokens: envInt('OWRL_POLICY_MAX_TOKENS', 1024, env, 1),
    temperature,
    ...(topP !== undefined ? { topP } : {}),
    historyMode: envOneOf('OWRL_POLICY_HISTORY', 'full', ['full', 'hide_thinking', 'action_only'] as const, env),
    screenshots: envInt('OWRL_POLICY_SCREENSHOTS', 1, env, 0),
    coords: parseCoords('OWRL_POLICY_COORDS', envString('OWRL_POLICY_COORDS', 'relative:1000', env)),
    toolsIn: envOneOf('OWRL_POLICY_TOOLS', 'native', ['native', 'prompt'] as const, env),
    maxElements: envInt('OWRL_POLICY_MAX_ELEMENTS', 60, env, 0),
    logprobs: envBool('OWRL_POLICY_LOGPROBS', true, env),
  };
}
