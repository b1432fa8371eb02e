// What an OpenAI-compatible server's error answer means for a policy step: retry it (5xx, 429,
// 408, an aborted generation), the prompt no longer fits the context (vLLM's, SGLang's and
// OpenAI's 400 wordings, current and earlier, with the numbers they state and the completion
// budget that still fits), or a refused request. Pure logic.
import { isObject } from './chat-types.js';

/** The message of an error body: vLLM `{"error": {...}}`, SGLang/older vLLM `{"object": "error", "message": ...}`, or plain text. */
export function errorMessage(body: unknown, text: string): string {
  if (isObject(body)) {
    const e = body['error'];
    if (isObject(e) && typeof e['message'] === 'string') return e['message'];
    if (typeof e === 'string') return e;
    if (typeof body['message'] === 'string') return body['message'];
    if (typeof body['detail'] === 'string') return body['detail'];
  }
  return text.trim().slice(0, 500);
}

export interface ContextOverflow {
  message: string;
  /** The model's context length, when stated. */
  limit?: number;
  /** Prompt tokens, when stated (never a character count). */
  input?: number;
  /** Completion tokens that still fit with this prompt, when the wording gives the numbers (may be <= 0). */
  room?: number;
}

const num = (s: string | undefined): number | undefined => {
  if (s === undefined) return undefined;
  const n = Number(s.replace(/,/g, ''));
  return Number.isFinite(n) ? n : undefined;
};

/** One wording: how to find it, read its numbers, and how many tokens fit at the limit. */
interface Wording {
  match: RegExp;
  read: (m: RegExpExecArray) => { limit?: string | undefined; input?: string | undefined };
  /** Tokens a request may use in all, given the limit: the engine refuses `input + max_tokens > limit` (0) or `>= limit` (1). */
  strict?: number;
}

// The engines' context-length refusals, newest first. vLLM's renderer (TokenizeParams._token_len_check)
// refuses `input > limit - max_tokens`; SGLang (TokenizerManager._validate_one_request) refuses
// `input + max_new_tokens >= limit`, so one token less fits there.
const WORDINGS: Wording[] = [
  // vLLM, current: "You passed N input tokens and requested M output tokens. However, the model's context length is only L tokens, resulting in a maximum input length of K tokens. ... (parameter=input_tokens, value=N)"
  { match: /You passed ([\d,]+) input tokens and requested [\d,]+ output tokens\. However, the model's context length is only ([\d,]+) tokens/i, read: (m) => ({ input: m[1], limit: m[2] }) },
  // vLLM, current, for a text prompt checked before tokenizing: a character count, no token count
  { match: /You passed [\d,]+ input characters and requested [\d,]+ output tokens\. However, the model's context length is only ([\d,]+) tokens/i, read: (m) => ({ limit: m[1] }) },
  // SGLang: "Requested token count exceeds the model's maximum context length of L tokens. You requested a total of T tokens: N tokens from the input messages and M tokens for the completion."
  { match: /maximum context length of ([\d,]+) tokens\. You requested a total of [\d,]+ tokens: ([\d,]+) tokens from the input/i, read: (m) => ({ limit: m[1], input: m[2] }), strict: 1 },
  // SGLang: "The input (N tokens) is longer than the model's context length (L tokens)."
  { match: /The input \(([\d,]+) tokens\) is longer than the model's context length \(([\d,]+) tokens\)/i, read: (m) => ({ input: m[1], limit: m[2] }), strict: 1 },
  // vLLM, earlier: "'max_tokens' or 'max_completion_tokens' is too large: X. This model's maximum context length is L tokens and your request has N input tokens (X > L - N)."
  { match: /maximum context length is ([\d,]+) tokens and your request has ([\d,]+) input tokens/i, read: (m) => ({ limit: m[1], input: m[2] }) },
  // vLLM, earlier: "This model's maximum context length is L tokens. However, your request has N input tokens."
  { match: /maximum context length is ([\d,]+) tokens\. However, your request has ([\d,]+) input tokens/i, read: (m) => ({ limit: m[1], input: m[2] }) },
  // vLLM, older: "... However, you requested T tokens (N in the messages, M in the completion)."
  { match: /maximum context length is ([\d,]+) tokens\. However, you requested [\d,]+ tokens \(([\d,]+) in the messages/i, read: (m) => ({ limit: m[1], input: m[2] }) },
  // OpenAI: "This model's maximum context length is L tokens. However, your messages resulted in N tokens."
  { match: /maximum context length is ([\d,]+) tokens\. However, your messages resulted in ([\d,]+) tokens/i, read: (m) => ({ limit: m[1], input: m[2] }) },
  // vLLM, old: "... is longer than the maximum model length of L"
  { match: /longer than the maximum model length of ([\d,]+)/i, read: (m) => ({ limit: m[1] }) },
];

/**
 * Recognises a context-length refusal (HTTP 400/413) in the wordings vLLM, SGLang and OpenAI use
 * now and used before, with the numbers it states and the completion budget that still fits.
 */
export function contextOverflow(status: number, body: unknown, text: string): ContextOverflow | undefined {
  if (status !== 400 && status !== 413) return undefined;
  const message = errorMessage(body, text);
  const code = isObject(body) && isObject(body['error']) ? body['error']['code'] : undefined;
  for (const w of WORDINGS) {
    const m = w.match.exec(message);
    if (!m) continue;
    const { limit, input } = w.read(m);
    const out: ContextOverflow = { message };
    const l = num(limit);
    const i = num(input);
    if (l !== undefined) out.limit = l;
    if (i !== undefined) out.input = i;
    if (l !== undefined && i !== undefined) out.room = l - i - (w.strict ?? 0);
    return out;
  }
  const m = message.toLowerCase();
  const generic = code === 'context_length_exceeded' || m.includes('maximum context length') || m.includes("model's context length") || m.includes('context window');
  return generic ? { message } : undefined;
}

/** Statuses worth another attempt: the server is overloaded, restarting or timed out. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 425 || status === 429 || status >= 500;
}

/** Delay a Retry-After header asks for, ms (capped), or undefined. */
export function retryAfterMs(header: string | null, capMs: number): number | undefined {
  if (header === null) return undefined;
  const s = Number(header);
  if (Number.isFinite(s) && s >= 0) return Math.min(capMs, s * 1000);
  const at = Date.parse(header);
  return Number.isFinite(at) ? Math.min(capMs, Math.max(0, at - Date.now())) : undefined;
}
