// What an OpenAI-compatible server's error answer means for a policy step: retry it (5xx, 429,
// 408, an aborted generation), the prompt no longer fits the context (vLLM's, SGLang's and
// OpenAI's 400 wordings, with the numbers they state), or a refused request. Pure logic.
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
  /** Prompt tokens, when stated. */
  input?: number;
}

const num = (s: string | undefined): number | undefined => (s === undefined ? undefined : Number(s.replace(/,/g, '')));

/**
 * Recognises a context-length refusal. Wordings seen in vLLM ("This model's maximum context
 * length is M tokens. However, you requested N tokens ...", "... is too large: X. This model's
 * maximum context length is M tokens and your request has N input tokens ...", "... is longer
 * than the maximum model length of M"), SGLang ("The input (N tokens) is longer than the model's
 * context length (M tokens).", "Requested token count exceeds the model's maximum context length
 * of M tokens ...") and OpenAI (code context_length_exceeded).
 */
export function contextOverflow(status: number, body: unknown, text: string): ContextOverflow | undefined {
  if (status !== 400 && status !== 413) return undefined;
  const message = errorMessage(body, text);
  const code = isObject(body) && isObject(body['error']) ? body['error']['code'] : undefined;
  const m = message.toLowerCase();
  const hit =
    code === 'context_length_exceeded' ||
    m.includes('maximum context length') ||
    m.includes("longer than the model's context length") ||
    m.includes('longer than the maximum model length') ||
    m.includes('context window');
  if (!hit) return undefined;
  const sglang = /the input \(([\d,]+) tokens\) is longer than the model's context length \(([\d,]+) tokens\)/i.exec(message);
  const limit = sglang?.[2] ?? /maximum (?:context|model) length (?:is |of )?([\d,]+)/i.exec(message)?.[1];
  const input = sglang?.[1] ?? /(?:request has|messages resulted in)\s*([\d,]+)/i.exec(message)?.[1] ?? /\(([\d,]+) in the messages/i.exec(message)?.[1] ?? /([\d,]+) tokens from the input/i.exec(message)?.[1];
  const out: ContextOverflow = { message };
  const l = num(limit);
  const i = num(input);
  if (l !== undefined && Number.isFinite(l)) out.limit = l;
  if (i !== undefined && Number.isFinite(i)) out.input = i;
  return out;
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
