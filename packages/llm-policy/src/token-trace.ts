// The token-level trace of one model call, read from whatever the server returned: completion
// token ids (vLLM and SGLang `choice.token_ids`, vLLM "token_id:N" logprob tokens, SGLang
// `meta_info.output_token_logprobs`), their behaviour log-probabilities (`choice.logprobs.content`),
// prompt token ids (vLLM `prompt_token_ids` on the response, SGLang on the choice), the finish
// reason, the model name the request used, the sampler it set and references to the images it
// carried. A step without ids or matching log-probs is marked incomplete: the learner cannot
// train it token-level. A step that must not train (cut off at max_tokens, unparseable) gets a
// loss mask of zeros (docs/trainer.md).
import { create, PolicyTraceSchema, TokenTraceSchema, type ImageRef, type PolicyTrace, type SamplerSettings, type TokenTrace } from '@owrl/proto';
import { isObject } from './chat-types.js';

function ints(v: unknown): number[] | undefined {
  if (!Array.isArray(v) || !v.every((x) => typeof x === 'number' && Number.isInteger(x) && x >= 0 && x <= 0xffffffff)) return undefined;
  return v as number[];
}

const TOKEN_ID = /^token_id:(\d+)$/;

/** The ids and log-probs of an answer, and where the ids came from. */
export interface ReadTokens {
  ids: number[];
  logprobs: number[];
  promptIds: number[];
  /** `token_ids`, `meta_info`, `token_id:N` or '' when none were found. */
  idsFrom: string;
}

function fromLogprobContent(choice: Record<string, unknown>): { tokens: unknown[]; logprobs: number[] } | undefined {
  const lp = choice['logprobs'];
  if (!isObject(lp) || !Array.isArray(lp['content'])) return undefined;
  const content = lp['content'] as unknown[];
  const logprobs: number[] = [];
  const tokens: unknown[] = [];
  for (const c of content) {
    if (!isObject(c) || typeof c['logprob'] !== 'number') return undefined;
    logprobs.push(c['logprob']);
    tokens.push(c['token']);
  }
  return { tokens, logprobs };
}

/** Completion ids, their log-probs and the prompt ids of an answer, wherever the engine put them. */
export function readTokens(body: unknown, choice: Record<string, unknown>): ReadTokens {
  const content = fromLogprobContent(choice);
  let idsFrom = '';
  let ids = ints(choice['token_ids']);
  if (ids) idsFrom = 'token_ids';
  if (!ids && content) {
    const parsed = content.tokens.map((t) => (typeof t === 'string' ? TOKEN_ID.exec(t) : null));
    if (parsed.length > 0 && parsed.every((m) => m !== null)) {
      ids = parsed.map((m) => Number(m?.[1]));
      idsFrom = 'token_id:N';
    }
  }
  let logprobs = content?.logprobs;
  const meta = choice['meta_info'];
  if (isObject(meta) && Array.isArray(meta['output_token_logprobs'])) {
    // SGLang: [[logprob, token_id, text|null], ...]
    const rows = meta['output_token_logprobs'] as unknown[];
    if (rows.length > 0 && rows.every((r) => Array.isArray(r) && typeof r[0] === 'number' && typeof r[1] === 'number')) {
      logprobs ??= rows.map((r) => (r as number[])[0] ?? 0);
      if (!ids) {
        ids = rows.map((r) => (r as number[])[1] ?? 0);
        idsFrom = 'meta_info';
      }
    }
  }
  const promptIds = (isObject(body) ? ints(body['prompt_token_ids']) : undefined) ?? ints(choice['prompt_token_ids']) ?? [];
  return { ids: ids ?? [], logprobs: logprobs ?? [], promptIds, idsFrom };
}

export interface TraceContext {
  /** The model name the request named. */
  model: string;
  images: ImageRef[];
  /** The sampler the request that answered set. */
  sampler?: SamplerSettings;
}

/** The token trace of a response body's first choice. */
export function tokenTrace(body: unknown, choice: Record<string, unknown>, ctx: TraceContext): TokenTrace {
  const { ids, logprobs, promptIds } = readTokens(body, choice);
  const usage = isObject(body) && isObject(body['usage']) ? body['usage'] : {};
  const promptTokens = typeof usage['prompt_tokens'] === 'number' ? usage['prompt_tokens'] : promptIds.length;
  const finish = typeof choice['finish_reason'] === 'string' ? choice['finish_reason'] : '';
  return create(TokenTraceSchema, {
    tokenIds: ids,
    logprobs,
    promptTokens,
    finishReason: finish,
    promptTokenIds: promptIds,
    model: ctx.model,
    images: ctx.images,
    incomplete: ids.length === 0 || logprobs.length !== ids.length,
    ...(ctx.sampler ? { sampler: ctx.sampler } : {}),
  });
}

/** A trace for a call that produced no completion (e.g. a prompt past the context). */
export function emptyTokenTrace(finishReason: string, ctx: TraceContext): TokenTrace {
  return create(TokenTraceSchema, { finishReason, model: ctx.model, images: ctx.images, incomplete: true, ...(ctx.sampler ? { sampler: ctx.sampler } : {}) });
}

/** Marks every completion token of `t` as not trained (loss mask of zeros); returns `t`. */
export function maskAll(t: TokenTrace): TokenTrace {
  t.lossMask = new Array<number>(t.tokenIds.length).fill(0);
  return t;
}

export function tokensPolicyTrace(t: TokenTrace): PolicyTrace {
  return create(PolicyTraceSchema, { kind: { case: 'tokens', value: t } });
}
