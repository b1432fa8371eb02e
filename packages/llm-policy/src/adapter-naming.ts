// How a request names the LoRA adapter of a policy version, the way each engine resolves it.
// vLLM serves every loaded adapter as a model of its own: `model` is the adapter's name. SGLang
// keeps serving the base model under its served name and picks an adapter from `model:
// "<served model>:<adapter>"` (split at the first colon; the model suffix wins) or from the
// `lora_path` field; a request whose `model` is a bare adapter name is served by the base model
// (or refused as a model not served, by releases that check the name). Both are sent, so a
// release that reads either one runs the adapter. Pure logic.
import type { ChatRequest, ServingEngine } from './chat-types.js';

/**
 * The `model` (and `lora_path`) of a request for `adapter` on `engine`; without an adapter, the
 * served model itself.
 */
export function requestModel(engine: ServingEngine, model: string, adapter?: string): Pick<ChatRequest, 'model' | 'lora_path'> {
  if (adapter === undefined || adapter === '') return { model };
  if (engine === 'sglang') return { model: `${model}:${adapter}`, lora_path: adapter };
  return { model: adapter };
}

/**
 * Why `model` cannot be the served name requests build on for `engine`, or undefined: SGLang
 * splits `model` at its first colon, so a served name with a colon would lose its adapter.
 */
export function servedNameProblem(engine: ServingEngine, model: string): string | undefined {
  if (model.trim() === '') return 'the served model name is empty';
  if (engine === 'sglang' && model.includes(':')) {
    return `SGLang reads "<served model>:<adapter>" split at the first colon, so the served model name ${JSON.stringify(model)} cannot carry a colon: start SGLang with --served-model-name without one`;
  }
  return undefined;
}
