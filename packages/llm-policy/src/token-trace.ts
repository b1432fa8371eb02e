// The token-level trace of one model call, read from whatever the server returned: completion
// token ids (vLLM and SGLang `choice.token_ids`, vLLM "token_id:N" logprob tokens, SGLang
// `meta_info.output_token_logprobs`), their behaviour log-probabilities (`choice.logprobs.content`),
// prompt token ids (vLLM `prompt_token_ids` on the response, SGLang on the choice), the finish
// reason, the model name the request used and references to the images it carried. A step
// without ids or matching log-probs is marked incomplete: the learner cannot train it token-level.
import { create, PolicyTraceSchema, TokenTraceSchema, type ImageRef, type PolicyTrace, type TokenTrace } from '@owrl/proto';
import { isObject } from './chat-types.js';

function ints(v: unknown): number[] | undefined {
  if (!Array.isArray(v) || !v.every((x) => typeof x === 'number' && Number.isInteger(x) && x >= 0 && x <= 0xffffffff)) return undefined;
  return v as number[];
}

const TOKEN_ID = /^token_id:(\d+)$/;

interface Completion {
  ids: number[];
  logprobs: number[];
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

function completion(choice: Record<string, unknown>): Completion {
  const content = fromLogprobContent(choice);
  let ids = ints(choice['token_ids']);
  if (!ids && content) {
    const parsed = content.tokens.map((t) => (typeof t === 'string' ? TOKEN_ID.exec(t) : null));
    if (parsed.length > 0 && parsed.every((m) => m !== null)) ids = parsed.map((m) => Number(m?.[1]));
  }
  let logprobs = content?.logprobs;
  const meta = choice['meta_info'];
  if (isObject(meta) && Array.isArray(meta['output_token_logprobs'])) {
    // SGLang: [[logprob, token_id, text|null], ...]
    const rows = meta['output_token_logprobs'] as unknown[];
    if (rows.every((r) => Array.isArray(r) && typeof r[0] === 'number' && typeof r[1] === 'number')) {
      logprobs ??= rows.map((r) => (r as number[])[0] ?? 0);
      ids ??= rows.map((r) => (r as number[])[1] ?? 0);
    }
  }
  return { ids: ids ?? [], logprobs: logprobs ?? [] };
}

export interface TraceContext {
  /** The model name the request named. */
  model: string;
  images: ImageRef[];
}

/** The token trace of a response body's first choice. */
export function tokenTrace(body: unknown, choice: Record<string, unknown>, ctx: TraceContext): TokenTrace {
  const { ids, logprobs } = completion(choice);
  const promptIds = (isObject(body) ? ints(body['prompt_token_ids']) : undefined) ?? ints(choice['prompt_token_ids']) ?? [];
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
  });
}

/** A trace for a call that produced no completion (e.g. a prompt past the context). */
export function emptyTokenTrace(finishReason: string, ctx: TraceContext): TokenTrace {
  return create(TokenTraceSchema, { finishReason, model: ctx.model, images: ctx.images, incomplete: true });
}

export function tokensPolicyTrace(t: TokenTrace): PolicyTrace {
  return create(PolicyTraceSchema, { kind: { case: 'tokens', value: t } });
}
