// The sampler of the `openai` policy. vLLM and SGLang fill every sampling parameter a request
// leaves out from the model's generation_config.json (Qwen3-VL: temperature 0.7, top_p 0.8,
// top_k 20), so owrl sets each of them on every request and the recorded log-probs belong to the
// distribution it chose. Which log-probs an engine reports is a start-up setting of the engine
// (vLLM --logprobs-mode, SGLang SGLANG_RETURN_ORIGINAL_LOGPROB), so the policy is told it and
// refuses settings under which the reported numbers are not those of the sampled tokens'
// distribution at the trace's temperature. Pure logic.
import { create, LogprobMode as WireLogprobMode, SamplerSettingsSchema, type SamplerSettings as WireSamplerSettings } from '@owrl/proto';
import type { ChatRequest, ServingEngine } from './chat-types.js';

export interface SamplerSettings {
  temperature: number;
  /** 1 = off. */
  topP: number;
  /** -1 = off (both engines accept -1 for "all tokens"). */
  topK: number;
  /** 0 = off. */
  minP: number;
  /** 1 = off. */
  repetitionPenalty: number;
  /** 0 = off. */
  presencePenalty: number;
  /** 0 = off. */
  frequencyPenalty: number;
}

/** Plain sampling from the model's distribution: what the trainer's log_softmax(logits / T) reproduces. */
export const DEFAULT_SAMPLER: SamplerSettings = {
  temperature: 1,
  topP: 1,
  topK: -1,
  minP: 0,
  repetitionPenalty: 1,
  presencePenalty: 0,
  frequencyPenalty: 0,
};

/**
 * Which distribution the engine's log-probs are of:
 * - `raw`: log_softmax(logits), before penalties and temperature (vLLM's default `--logprobs-mode raw_logprobs`);
 * - `temperature`: after penalties and temperature, before top-k/top-p/min-p (SGLang's default);
 * - `processed`: the distribution sampled from (vLLM `--logprobs-mode processed_logprobs`).
 */
export type LogprobMode = 'raw' | 'temperature' | 'processed';
export const LOGPROB_MODES: readonly LogprobMode[] = ['raw', 'temperature', 'processed'];

/** What an engine reports when started without a log-prob setting. */
export function defaultLogprobMode(engine: ServingEngine): LogprobMode {
  if (engine === 'vllm') return 'raw';
  if (engine === 'sglang') return 'temperature';
  return 'processed';
}

/**
 * Why `s` cannot be used with `engine` reporting `mode` log-probs, or undefined when it can.
 * Checks ranges, parameters the hosted OpenAI API does not have, and vLLM's raw log-probs with a
 * temperature or penalty (they would be the log-probs of another distribution than the sampled one).
 */
export function samplerProblem(s: SamplerSettings, engine: ServingEngine, mode: LogprobMode): string | undefined {
  if (!(s.temperature >= 0) || !Number.isFinite(s.temperature)) return `temperature=${s.temperature} must be >= 0`;
  if (!(s.topP > 0 && s.topP <= 1)) return `top_p=${s.topP} must be within (0, 1]`;
  if (!Number.isInteger(s.topK) || (s.topK < 1 && s.topK !== -1)) return `top_k=${s.topK} must be -1 (off) or an integer >= 1`;
  if (!(s.minP >= 0 && s.minP < 1)) return `min_p=${s.minP} must be within [0, 1)`;
  if (!(s.repetitionPenalty > 0) || !Number.isFinite(s.repetitionPenalty)) return `repetition_penalty=${s.repetitionPenalty} must be > 0 (1 = off)`;
  for (const [name, v] of [
    ['presence_penalty', s.presencePenalty],
    ['frequency_penalty', s.frequencyPenalty],
  ] as const) {
    if (!(v >= -2 && v <= 2)) return `${name}=${v} must be within [-2, 2]`;
  }
  if (engine === 'openai' && (s.topK !== -1 || s.minP !== 0 || s.repetitionPenalty !== 1)) {
    return 'the openai engine (a hosted OpenAI API) has no top_k, min_p or repetition_penalty: leave them off (-1, 0, 1)';
  }
  // Greedy decoding (temperature 0, for evaluation) has no distribution to train against.
  if (engine === 'vllm' && mode === 'raw' && s.temperature > 0 && (s.temperature !== 1 || s.repetitionPenalty !== 1 || s.presencePenalty !== 0 || s.frequencyPenalty !== 0)) {
    return `vLLM reports raw log-probs (before temperature and penalties) unless started with --logprobs-mode processed_logprobs; with temperature=${s.temperature}, repetition_penalty=${s.repetitionPenalty}, presence_penalty=${s.presencePenalty}, frequency_penalty=${s.frequencyPenalty} they are not the log-probs of the sampled distribution: start vLLM with --logprobs-mode processed_logprobs and set the log-prob mode to processed, or sample at temperature 1 without penalties`;
  }
  return undefined;
}

/** The request fields that pin the sampler (the hosted OpenAI API gets only the fields it has). */
export function samplerFields(s: SamplerSettings, engine: ServingEngine): Pick<ChatRequest, 'temperature' | 'top_p' | 'top_k' | 'min_p' | 'repetition_penalty' | 'presence_penalty' | 'frequency_penalty'> {
  const common = { temperature: s.temperature, top_p: s.topP, presence_penalty: s.presencePenalty, frequency_penalty: s.frequencyPenalty };
  if (engine === 'openai') return common;
  return { ...common, top_k: s.topK, min_p: s.minP, repetition_penalty: s.repetitionPenalty };
}

const WIRE_MODE: Record<LogprobMode, WireLogprobMode> = {
  raw: WireLogprobMode.RAW,
  temperature: WireLogprobMode.TEMPERATURE,
  processed: WireLogprobMode.PROCESSED,
};

/** The trace record of a request's sampler (what the request that answered set). */
export function samplerTrace(s: SamplerSettings, engine: ServingEngine, mode: LogprobMode, req: Pick<ChatRequest, 'seed' | 'max_tokens'>): WireSamplerSettings {
  return create(SamplerSettingsSchema, {
    temperature: s.temperature,
    topP: s.topP,
    topK: s.topK,
    minP: s.minP,
    repetitionPenalty: s.repetitionPenalty,
    presencePenalty: s.presencePenalty,
    frequencyPenalty: s.frequencyPenalty,
    ...(req.seed !== undefined ? { seed: BigInt(req.seed) } : {}),
    maxTokens: req.max_tokens ?? 0,
    logprobMode: WIRE_MODE[mode],
    engine,
  });
}
