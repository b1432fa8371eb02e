// The policy backends an actor can run, chosen by OWRL_POLICY: `pointer` runs the built-in ONNX
// pointer model (artifact kind onnx-pointer, fetched and sha256-checked); `openai` runs a model
// behind an OpenAI-compatible endpoint, one OpenAIPolicy per published version whose requests
// name the version's served model (a LoRA adapter's serve_name; for full weights the serve_name
// or the configured model). An artifact of any other kind is refused by the holder.
import { defaultServeName, OpenAIPolicy, type OpenAIPolicyConfig } from '@owrl/llm-policy';
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

export function openaiBackend(cfg: OpenAIPolicyConfig, logger: Logger): PolicyBackend {
  return {
    name: 'openai',
    kinds: ['lora-adapter', 'full-weights'],
    load: (a) => Promise.resolve(new OpenAIPolicy({ ...cfg, model: servedModel(a, cfg.model), version: a.version, logger })),
  };
}
