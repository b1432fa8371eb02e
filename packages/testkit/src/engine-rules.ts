// The rules the model-server stand-in applies the way vLLM and SGLang do (pure): which model or
// LoRA adapter serves a request, which sampling parameters a request ends up with when the model's
// generation config fills the ones it leaves out, whether a request fits the context and the
// engines' own wordings when it does not. Facts from the engines' sources:
// - SGLang OpenAIServingBase._parse_model_parameter / _resolve_lora_path: an adapter comes from
//   `model: "<base>:<adapter>"` (split at the first colon, the suffix wins) or `lora_path`; any
//   other `model` runs the base model (releases with the served-model check refuse a name that is
//   not served: 404 "Model '<name>' is not served."); TokenizerManager: an adapter never loaded is
//   "Got LoRA adapter that has never been loaded: ...", LoRA off is "LoRA adapter '<name>' was
//   requested, but LoRA is not enabled. ...".
// - Both engines: a sampling field the request leaves out comes from the model's generation
//   config, else the engine default (SGLang ChatCompletionRequest.to_sampling_params "user value >
//   model generation_config > OpenAI defaults"; vLLM to_sampling_params with default_sampling_params).
// - vLLM (renderers/params.py TokenizeParams._token_len_check, exceptions.VLLMValidationError):
//   a prompt longer than max_model_len - max_tokens is refused "You passed N input tokens and
//   requested M output tokens. However, the model's context length is only L tokens, resulting in a
//   maximum input length of K tokens. Please reduce the length of the input prompt. (parameter=
//   input_tokens, value=N)"; releases before the renderer used the "'max_tokens' or
//   'max_completion_tokens' is too large" and "This model's maximum context length is" wordings.
// - SGLang (TokenizerManager._validate_one_request): input >= context length is "The input (N
//   tokens) is longer than the model's context length (L tokens)."; input + max_new_tokens >=
//   context length is "Requested token count exceeds the model's maximum context length of L
//   tokens. ...".
export type Engine = 'vllm' | 'sglang';

/** vLLM's context-length wordings: `current` (the renderer's), `legacy` (releases before it). */
export type VllmWording = 'current' | 'legacy';

export interface ServedModel {
  /** The adapter that ran the request, or the base model's name. */
  servedBy: string;
  /** The adapter the request mentions in any field (model suffix, lora_path, or a model name that is not the base), or the base model's name. */
  named: string;
}

export interface EngineRefusal {
  status: number;
  message: string;
  type: string;
  param?: string;
}

export interface ModelState {
  baseModel: string;
  adapters: ReadonlyMap<string, string>;
  /** LoRA serving on (vLLM --enable-lora; SGLang --enable-lora). */
  lora: boolean;
  /** SGLang: refuse a `model` whose base part is not the served model (releases with the served-model check). */
  sglangModelCheck: boolean;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** Which model or adapter serves `body`, or the engine's refusal. */
export function resolveModel(engine: Engine, body: Record<string, unknown>, s: ModelState): ServedModel | EngineRefusal {
  const model = str(body['model']);
  if (engine === 'vllm') {
    if (model === s.baseModel) return { servedBy: s.baseModel, named: s.baseModel };
    if (s.adapters.has(model)) return { servedBy: model, named: model };
    return { status: 404, message: `The model \`${model}\` does not exist.`, type: 'NotFoundError', param: 'model' };
  }
  const colon = model.indexOf(':');
  const base = colon >= 0 ? model.slice(0, colon).trim() : model;
  const suffix = colon >= 0 ? model.slice(colon + 1).trim() : '';
  const lora = str(body['lora_path']);
  const adapter = suffix !== '' ? suffix : lora;
  const named = adapter !== '' ? adapter : model !== '' && model !== s.baseModel ? model : s.baseModel;
  if (s.sglangModelCheck && model !== '' && base !== s.baseModel) return { status: 404, message: `Model '${model}' is not served.`, type: 'NotFound' };
  if (adapter === '') return { servedBy: s.baseModel, named };
  if (!s.lora) {
    return {
      status: 400,
      message: `LoRA adapter '${adapter}' was requested, but LoRA is not enabled. Please launch the server with --enable-lora flag and preload adapters using --lora-paths or /load_lora_adapter endpoint.`,
      type: 'BadRequest',
    };
  }
  if (!s.adapters.has(adapter)) {
    return { status: 400, message: `Got LoRA adapter that has never been loaded: ${adapter}\nAll loaded adapters: dict_keys(${JSON.stringify([...s.adapters.keys()])}).`, type: 'BadRequest' };
  }
  return { servedBy: adapter, named };
}

/** The sampling parameters a request runs with. */
export interface EffectiveSampling {
  temperature: number;
  top_p: number;
  top_k: number;
  min_p: number;
  repetition_penalty: number;
  presence_penalty: number;
  frequency_penalty: number;
}

/** Sampling fields a generation_config.json may set (Qwen3-VL's: temperature 0.7, top_p 0.8, top_k 20). */
export type GenerationConfig = Partial<EffectiveSampling>;

const ENGINE_DEFAULTS: EffectiveSampling = { temperature: 1, top_p: 1, top_k: -1, min_p: 0, repetition_penalty: 1, presence_penalty: 0, frequency_penalty: 0 };

/** Request value, else the generation config's, else the engine default, field by field. */
export function effectiveSampling(body: Record<string, unknown>, gen: GenerationConfig): EffectiveSampling {
  const out = { ...ENGINE_DEFAULTS };
  for (const k of Object.keys(ENGINE_DEFAULTS) as Array<keyof EffectiveSampling>) {
    const v = body[k];
    out[k] = typeof v === 'number' ? v : (gen[k] ?? ENGINE_DEFAULTS[k]);
  }
  return out;
}

/** Whether `input` prompt tokens and a budget of `maxTokens` are refused by a context of `limit`. */
export function overflows(engine: Engine, limit: number, input: number, maxTokens: number | undefined): boolean {
  if (engine === 'sglang') return input >= limit || (maxTokens !== undefined && input + maxTokens >= limit);
  return input + (maxTokens ?? 0) > limit;
}

/** The engine's refusal of a request past the context. */
export function overflowRefusal(engine: Engine, wording: VllmWording, limit: number, input: number, maxTokens: number | undefined): EngineRefusal {
  if (engine === 'sglang') {
    const message =
      input >= limit
        ? `The input (${input} tokens) is longer than the model's context length (${limit} tokens).`
        : `Requested token count exceeds the model's maximum context length of ${limit} tokens. You requested a total of ${input + (maxTokens ?? 0)} tokens: ${input} tokens from the input messages and ${maxTokens ?? 0} tokens for the completion. Please reduce the number of tokens in the input messages or the completion to fit within the limit.`;
    return { status: 400, message, type: 'BadRequest' };
  }
  const m = maxTokens ?? 0;
  if (wording === 'current') {
    return {
      status: 400,
      message: `You passed ${input} input tokens and requested ${m} output tokens. However, the model's context length is only ${limit} tokens, resulting in a maximum input length of ${limit - m} tokens. Please reduce the length of the input prompt. (parameter=input_tokens, value=${input})`,
      type: 'BadRequestError',
      param: 'input_tokens',
    };
  }
  const message =
    input < limit && maxTokens !== undefined
      ? `'max_tokens' or 'max_completion_tokens' is too large: ${maxTokens}. This model's maximum context length is ${limit} tokens and your request has ${input} input tokens (${maxTokens} > ${limit} - ${input}).`
      : `This model's maximum context length is ${limit} tokens. However, your request has ${input} input tokens. Please reduce the length of the input messages.`;
  return { status: 400, message, type: 'BadRequestError' };
}
