// The chat completion request of the API judge: the judge prompt of prompt.ts (the same system
// message, history rendering and question as the ONNX judge) as OpenAI messages, the final
// screenshot as an image_url part (a data URL) for vision-language judges, shortened to a
// character budget the way the ONNX judge fits its token budget, and asking for one token with
// its top log-probabilities. Pure.
import { JudgeModelError, JudgeModelErrorCode } from './errors.js';
import { buildMessages, mapInputText, type ChatMessage, type JudgeInput, type PromptOptions } from './prompt.js';
import { shortenToFit } from './prompt-fit.js';

export interface ChatRequestOptions {
  model: string;
  prompt: PromptOptions;
  /** Budget of the prompt's text (system + user), in characters. */
  maxPromptChars: number;
  /** Ask for log-probabilities (logprobs + top_logprobs). */
  logprobs: boolean;
  /** top_logprobs (OpenAI allows 0–20; vLLM up to its --max-logprobs). */
  topLogprobs: number;
  /** max_tokens: 1 reads the answer token only. */
  maxTokens: number;
  /** Merged into the body last (e.g. {"chat_template_kwargs": {"enable_thinking": false}}); cannot replace model or messages. */
  extraBody?: Record<string, unknown>;
}

export interface ChatRequest {
  body: Record<string, unknown>;
  /** Oldest steps left out to fit the budget. */
  droppedSteps: number;
  /** Characters of prompt text sent. */
  promptChars: number;
}

type OpenAiPart = { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } };
interface OpenAiMessage {
  role: string;
  content: string | OpenAiPart[];
}

// Turn-ending and special-token spellings of common chat templates ("<|im_end|>", "<|eot_id|>",
// "<|endoftext|>", "</s>"): text the agent or a page wrote must not end the judge's turn on a
// server that tokenizes special tokens inside message text.
const SPECIAL = /<\|[^|<>\s]{1,64}\|>|<\/?s>/g;

/** `text` with special-token spellings broken up by a space after their first character. */
export function neutralizeSpecials(text: string): string {
  return text.replace(SPECIAL, (m) => `${m.slice(0, 1)} ${m.slice(1)}`);
}

/** `data:` URL of a screenshot (PNG when it has the PNG signature, JPEG otherwise). */
export function imageDataUrl(bytes: Uint8Array): string {
  const png = bytes.length >= 8 && bytes[0] === 0x89 && bytes[1] === 0x50 && bytes[2] === 0x4e && bytes[3] === 0x47;
  return `data:image/${png ? 'png' : 'jpeg'};base64,${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64')}`;
}

function toOpenAi(messages: ChatMessage[], image: Uint8Array | undefined): OpenAiMessage[] {
  return messages.map((m) => ({
    role: m.role,
    content:
      typeof m.content === 'string'
        ? m.content
        : m.content.map((p): OpenAiPart => (p.type === 'text' ? { type: 'text', text: p.text } : { type: 'image_url', image_url: { url: image === undefined ? '' : imageDataUrl(image) } })),
  }));
}

function textChars(messages: ChatMessage[]): number {
  let n = 0;
  for (const m of messages) {
    if (typeof m.content === 'string') n += m.content.length;
    else for (const p of m.content) if (p.type === 'text') n += p.text.length;
  }
  return n;
}

/**
 * The request body for one judgement.
 * @throws JudgeModelError JUDGE_MODEL_PROMPT_TOO_LONG when even the prompt with no steps and an
 *   empty task and answer exceeds `maxPromptChars`.
 */
export function buildChatRequest(untrusted: JudgeInput, o: ChatRequestOptions): ChatRequest {
  const input = mapInputText(untrusted, neutralizeSpecials);
  const fit = shortenToFit(input, (cut) => ({ cut, messages: buildMessages(input, o.prompt, cut) }), (v) => textChars(v.messages), o.maxPromptChars);
  if (!fit.fits) {
    throw new JudgeModelError(
      JudgeModelErrorCode.PromptTooLong,
      `the judge prompt needs ${textChars(fit.bare.messages)} characters with no steps and an empty task and answer; the budget is ${o.maxPromptChars}`,
    );
  }
  const { cut, messages } = fit.value;
  const withImage = o.prompt.image && input.screenshot !== undefined;
  const body: Record<string, unknown> = {
    max_tokens: o.maxTokens,
    temperature: 0,
    ...(o.logprobs ? { logprobs: true, top_logprobs: o.topLogprobs } : {}),
    ...o.extraBody,
    model: o.model,
    messages: toOpenAi(messages, withImage ? input.screenshot : undefined),
  };
  return { body, droppedSteps: cut.dropSteps, promptChars: textChars(messages) };
}
