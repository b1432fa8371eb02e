// The policy backends an actor can run, chosen by OWRL_POLICY: `pointer` runs the built-in ONNX
// pointer model (artifact kind onnx-pointer, fetched and sha256-checked); `openai` runs a model
// behind an OpenAI-compatible endpoint, one OpenAIPolicy per published version whose requests
// run the version: a LoRA adapter's serve_name as the adapter (named as the engine resolves it:
// vLLM the adapter as the model, SGLang "<served model>:<adapter>"), full weights under their
// serve_name or the configured model. With a weight loader (vLLM or SGLang, OWRL_POLICY_LOAD_WEIGHTS) the
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

/** What requests for `a` run: the served model and, for a LoRA adapter, the adapter's name. */
export function servedModel(a: PolicyArtifact, configured: string): { model: string; adapter?: string } {
  if (a.kind === 'lora-adapter') return { model: configured, adapter: a.serveName || defaultServeName(a.version) };
  return { model: a.serveName || configured };
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
      // a version without a uri is the model as served (version 0 of a language-model run)
      if (a.uri === '') return new OpenAIPolicy({ ...cfg, model: a.serveName || cfg.model, version: a.version, logger });
      if (loader) await loader.loadVersion(a);
      const { model, adapter } = servedModel(a, cfg.model);
      return new OpenAIPolicy({ ...cfg, model, ...(adapter ? { adapter } : {}), version: a.version, logger });
    },
  };
}
