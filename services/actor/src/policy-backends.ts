// The policy backends an actor can run, chosen by OWRL_POLICY: `pointer` runs the built-in ONNX
// pointer model (artifact kind onnx-pointer, fetched and sha256-checked); `openai` runs a model
// behind an OpenAI-compatible endpoint, one OpenAIPolicy per published version whose requests
// name the version's served model (a LoRA adapter's serve_name; for full weights the serve_name
// or the configured model). With a weight loader (vLLM or SGLang, OWRL_POLICY_LOAD_WEIGHTS) the
// engine is made to load a version before the first request names it: the holder loads one
// version at a time, so an actor loads each version once however many slots it runs. A version
// without a uri is the model the endpoint serves as configured (the base, version 0): nothing to
// load. An artifact of any other kind is refused by the holder.
import { defaultServeName, OpenAIPolicy, type EngineWeightLoader, type OpenAIPolicyConfig } from '@owrl/llm-policy';
import { OnnxPointerPolicy, POLICY_KIND, type Policy } from '@owrl/policy';
import type { PolicyArtifact } from '@owrl/proto';
import type { Logger } from '@owrl/telemetry';
import { fetchArtifact } from './artifact-fetch.js';

export interface PolicyBackend {
  /** OWRL_POLICY value. */
  readonly name: string;
  /** Artifact kinds it runs. */
  readonly kinds: readonly string[];
  load(a: PolicyArtifact): Promise<Policy>;
}

export function pointerBackend(): PolicyBackend {
  return {
    name: 'pointer',
    kinds: [POLICY_KIND],
    load: async (a) => OnnxPointerPolicy.load(await fetchArtifact(a.uri, a.sha256), { version: Number(a.version) }),
  };
}

/** The model name requests for `a` carry. */
export function servedModel(a: PolicyArtifact, configured: string): string {
  if (a.kind === 'lora-adapter') return a.serveName || defaultServeName(a.version);
  return a.serveName || configured;
}

/**
 * The openai backend. `loader`, when given, makes the serving engine load each version (a LoRA
 * adapter or full weights) before an OpenAIPolicy names it; without one the engine is expected to
 * have it already.
 */
export function openaiBackend(cfg: OpenAIPolicyConfig, logger: Logger, loader?: EngineWeightLoader): PolicyBackend {
  return {
    name: 'openai',
    kinds: ['lora-adapter', 'full-weights'],
    load: async (a) => {
      let model: string;
      if (a.uri === '') model = a.serveName || cfg.model;
      else if (loader) model = (await loader.loadVersion(a)).serveName || cfg.model;
      else model = servedModel(a, cfg.model);
      return new OpenAIPolicy({ ...cfg, model, version: a.version, logger });
    },
  };
}
