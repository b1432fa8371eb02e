// A judgement's CPU work before the model: the prompt rendered with the model's chat template,
// tokenized and fitted to the prompt budget (oldest steps left out first), and the screenshot
// decoded and cut into patches for a vision-language judge. The result crosses threads (plain
// arrays, and the patches' buffer transferred), so it can run beside the model on a GPU.
import { decodeJpeg, preprocessImage, type ImagePatches } from './image.js';
import { JudgeModelError, JudgeModelErrorCode, toWireError, type WireError } from './errors.js';
import { DEFAULT_MAX_PROMPT_TOKENS, type ModelFolder } from './folder.js';
import type { JudgeInput, PromptOptions } from './prompt.js';
import type { JudgeTokenizer } from './text.js';

export interface PreparedRow {
  /** Token ids, image placeholders expanded. */
  ids: number[];
  /** Oldest steps left out to fit the prompt budget. */
  dropSteps: number;
  image?: ImagePatches;
}

export type PreparedOutcome = PreparedRow | { error: WireError };

export function promptOptions(folder: ModelFolder): PromptOptions {
  const p = folder.judge.prompt;
  return { system: p.system, question: p.question, image: folder.judge.layout === 'vlm' && p.screenshot };
}

/**
 * The prompt budget in tokens: the option, else owrl_judge.json's, else the default capped at the
 * model's context.
 * @throws JudgeModelError JUDGE_MODEL_INVALID_ARGUMENT when it exceeds max_position_embeddings.
 */
export function promptTokenLimit(folder: ModelFolder, maxPromptTokens: number | undefined): number {
  const limit = folder.text.maxPositionEmbeddings;
  const max = maxPromptTokens ?? folder.judge.maxPromptTokens ?? Math.min(DEFAULT_MAX_PROMPT_TOKENS, limit ?? DEFAULT_MAX_PROMPT_TOKENS);
  if (limit !== undefined && max > limit) {
    throw new JudgeModelError(JudgeModelErrorCode.InvalidArgument, `max prompt tokens ${max} exceeds the model's max_position_embeddings ${limit}`);
  }
  return max;
}

export function prepareRows(
  folder: ModelFolder,
  tokenizer: JudgeTokenizer,
  prompt: PromptOptions,
  maxPromptTokens: number,
  inputs: readonly JudgeInput[],
): PreparedOutcome[] {
  return inputs.map((input): PreparedOutcome => {
    try {
      const image =
        prompt.image && input.screenshot !== undefined && folder.preprocessor !== undefined ? preprocessImage(decodeJpeg(input.screenshot), folder.preprocessor) : undefined;
      const encoded = tokenizer.encodeFitting(input, prompt, maxPromptTokens, image?.tokens ?? 0);
      return { ids: encoded.ids, dropSteps: encoded.dropSteps, ...(image !== undefined ? { image } : {}) };
    } catch (e) {
      return { error: toWireError(e) };
    }
  });
}

/** The buffers of prepared rows, to transfer instead of copy when they cross threads. */
export function transferables(rows: readonly PreparedOutcome[]): ArrayBuffer[] {
  const out: ArrayBuffer[] = [];
  for (const r of rows) {
    if ('image' in r && r.image !== undefined && r.image.patches.buffer instanceof ArrayBuffer) out.push(r.image.patches.buffer);
  }
  return out;
}
