// Wire shapes of the OpenAI chat-completions API as owrl sends and reads them, including the
// fields vLLM and SGLang add for token-level traces. Responses are untrusted JSON: readers below
// pick fields defensively and never assume a shape.
import type { ChatToolDefinition } from './tool-schemas.js';

export type ChatContentPart = { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } };

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string | ChatContentPart[];
}

/** The serving engine behind the endpoint: decides which extra request fields ask for token ids. */
export type ServingEngine = 'vllm' | 'sglang' | 'openai';

export interface ChatRequest {
  /** vLLM: the served model or a loaded LoRA adapter's name. SGLang: the served model, or `<served model>:<adapter>`. */
  model: string;
  messages: ChatMessage[];
  tools?: ChatToolDefinition[];
  tool_choice?: 'auto';
  max_tokens?: number;
  temperature?: number;
  top_p?: number;
  /** vLLM and SGLang only (not the OpenAI API); -1 = off. */
  top_k?: number;
  min_p?: number;
  repetition_penalty?: number;
  presence_penalty?: number;
  frequency_penalty?: number;
  seed?: number;
  logprobs?: boolean;
  stream: false;
  /** vLLM: completion `token_ids` on the choice and `prompt_token_ids` on the response. SGLang: completion `token_ids` on the choice. */
  return_token_ids?: boolean;
  /** SGLang: `prompt_token_ids` on the choice. */
  return_prompt_token_ids?: boolean;
  /** SGLang: the choice's `meta_info`, whose `output_token_logprobs` carry the completion ids (releases without `return_token_ids`). */
  return_meta_info?: boolean;
  /** SGLang: the LoRA adapter to run (the `model` suffix wins when both name one). */
  lora_path?: string;
}

/** One native tool call of a reply (`message.tool_calls[i]`). */
export interface WireToolCall {
  name: string;
  /** JSON text (OpenAI, vLLM) or an object (some SGLang versions). */
  arguments: unknown;
}

/** The parts of a chat-completion choice owrl reads. */
export interface ReplyMessage {
  content: string;
  /** Reasoning a server's reasoning parser split off (vLLM `reasoning` / `reasoning_content`, SGLang `reasoning_content`). */
  reasoning: string;
  toolCalls: WireToolCall[];
  finishReason: string;
}

type Json = Record<string, unknown>;

export function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/** The first choice of a response body, or undefined when the body is not a chat completion. */
export function firstChoice(body: unknown): Json | undefined {
  if (!isObject(body) || !Array.isArray(body['choices'])) return undefined;
  const c = (body['choices'] as unknown[])[0];
  return isObject(c) && isObject(c['message']) ? c : undefined;
}

/** The reply of a choice: text, split-off reasoning, native tool calls, finish reason. */
export function readReply(choice: Json): ReplyMessage {
  const m = isObject(choice['message']) ? choice['message'] : {};
  const calls: WireToolCall[] = [];
  if (Array.isArray(m['tool_calls'])) {
    for (const tc of m['tool_calls'] as unknown[]) {
      if (!isObject(tc)) continue;
      const fn = isObject(tc['function']) ? tc['function'] : {};
      calls.push({ name: str(fn['name']), arguments: fn['arguments'] });
    }
  }
  return {
    content: str(m['content']),
    reasoning: str(m['reasoning']) || str(m['reasoning_content']),
    toolCalls: calls,
    finishReason: str(choice['finish_reason']),
  };
}
