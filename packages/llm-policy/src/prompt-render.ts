// The agent format of OpenWebRL as a chat-completions request, rendered by one pure function:
// the system prompt gives the instructions (and, when the server does not render tool schemas
// itself, the 13 tools as JSON schemas); the conversation alternates user turns (the task, the
// effects of the previous step as a <tool_response>, the page) and the agent's own earlier
// replies seen through the history mode (full, hide_thinking, action_only); the latest K
// screenshots go as image parts, the newest on the current turn. Same input, same request bytes:
// golden tests pin the rendering.
import type { ElementInfo, HistoryEntry, HistoryMode, Observation } from '@owrl/core';
import type { PolicyInput } from '@owrl/policy';
import { requestModel } from './adapter-naming.js';
import type { ChatContentPart, ChatMessage, ChatRequest, ServingEngine } from './chat-types.js';
import { dataUrl } from './image-ref.js';
import { DEFAULT_SAMPLER, samplerFields, type SamplerSettings } from './sampling.js';
import { compressReplyText, renderCallBlock } from './reply-parse.js';
import { toolDefinitions, toolSchemas, type CoordinateSystem } from './tool-schemas.js';
import { fromPixels, type ValidateContext } from './tool-validate.js';

export interface RenderOptions {
  /** The model the engine serves (its served name): the base of an adapter. */
  model: string;
  /** The LoRA adapter of the policy version, named the way `engine` resolves it (adapter-naming.ts); none: the model itself. */
  adapter?: string;
  historyMode: HistoryMode;
  /** Screenshots in context, newest last (K). */
  screenshots: number;
  coords: CoordinateSystem;
  /** `native`: schemas in the request's `tools` (the server's chat template renders them); `prompt`: in the system prompt text. */
  toolsIn: 'native' | 'prompt';
  /** Interactive elements listed per observation (in-viewport first). */
  maxElements: number;
  engine: ServingEngine;
  /** Ask for per-token log-probabilities (and, on vLLM/SGLang, token ids). */
  logprobs: boolean;
  maxTokens?: number;
  /** Every sampling parameter, set on every request (sampling.ts). */
  sampler: SamplerSettings;
}

export const DEFAULT_RENDER_OPTIONS: Omit<RenderOptions, 'model'> = {
  historyMode: 'full',
  screenshots: 1,
  coords: { kind: 'relative', scale: 1000 },
  toolsIn: 'native',
  maxElements: 60,
  engine: 'vllm',
  logprobs: true,
  maxTokens: 1024,
  sampler: DEFAULT_SAMPLER,
};

function coordsSentence(coords: CoordinateSystem, obs: Observation): string {
  return coords.kind === 'relative'
    ? `x and y run from 0 to ${coords.scale} across the width and the height of the screenshot, (0, 0) being its top-left corner`
    : `x and y are pixels of the ${obs.viewport.width}x${obs.viewport.height} screenshot, (0, 0) being its top-left corner`;
}

/** The system prompt: instructions, and the tool schemas when they travel in the text. */
export function systemPrompt(opts: RenderOptions, obs: Observation): string {
  const lines = [
    'You are a web agent. You operate a Chromium browser to carry out a task for the user on live websites.',
    '',
    'Every turn shows the task, what your previous actions did, and the current page: its URL, title, open tabs, its interactive elements (numbered) and a screenshot.',
    '',
    'How to act:',
    '- Think about what to do next, then call one or more tools. Calls run in order and stop at the first one that fails, so one turn can click a search box, write the query and press Enter.',
    `- Point at things with point_2d = [x, y]: ${coordsSentence(opts.coords, obs)}. Instead of a point you may give element_id, the number of an element in the list.`,
    '- write replaces what the focused field holds: click the field first, or give its element_id.',
    '- When the task is done, or cannot be done, call done once with your final answer: the information the task asks for, or a short account of what you did.',
  ];
  if (opts.toolsIn === 'prompt') {
    lines.push(
      '',
      'Tools, as JSON schemas:',
      '<tools>',
      ...toolSchemas(opts.coords).map((t) => JSON.stringify({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } })),
      '</tools>',
      '',
      'Write your reasoning, then each call on its own as',
      '<tool_call>',
      '{"name": "<tool name>", "arguments": {<arguments as JSON>}}',
      '</tool_call>',
    );
  }
  return lines.join('\n');
}

/**
 * Text from pages (titles, element names and values, URLs, effects) with the strings a chat
 * tokenizer turns into control tokens broken up: `<|im_end|>` becomes `< |im_end|>`, `<tool_call>`
 * becomes `< tool_call>`, so a page cannot end the turn, fake a tool call or add image tokens.
 */
export function neutralize(s: string): string {
  return s.replace(/<\|/g, '< |').replace(/<(\/?)(tool_call|tool_response|think|tools)>/gi, '< $1$2>');
}

function quote(s: string, max: number): string {
  const t = neutralize(s).replace(/\s+/g, ' ').trim();
  return JSON.stringify(t.length > max ? `${t.slice(0, max - 1)}…` : t);
}

function elementLine(e: ElementInfo, ctx: ValidateContext): string {
  const parts = [`[${e.id}] ${e.role || e.tag}`];
  if (e.name !== '') parts.push(quote(e.name, 80));
  if (e.type !== '' && e.type !== e.role) parts.push(`type=${neutralize(e.type)}`);
  if (e.value !== '') parts.push(`value=${quote(e.value, 60)}`);
  if (e.inViewport) {
    const [x, y] = fromPixels([e.box.x + e.box.width / 2, e.box.y + e.box.height / 2], ctx);
    parts.push(`at (${x}, ${y})`);
  } else parts.push('(off-screen)');
  return parts.join(' ');
}

/** The text of the current page: URL, title, tabs, scroll position and the element list. */
export function pageText(obs: Observation, opts: RenderOptions): string {
  const ctx: ValidateContext = { coords: opts.coords, viewport: obs.viewport };
  const lines = [`URL: ${neutralize(obs.url)}`, `Title: ${quote(obs.title, 120)}`];
  if (obs.tabs.length > 1) {
    lines.push('Tabs:', ...obs.tabs.map((t) => `  [${t.index}]${t.active ? ' (current)' : ''} ${quote(t.title, 60)} ${neutralize(t.url)}`));
  }
  lines.push(`Scrolled ${Math.round(obs.scrollY)} of ${Math.round(obs.scrollMaxY)} px.`);
  const ordered = [...obs.elements.filter((e) => e.inViewport), ...obs.elements.filter((e) => !e.inViewport)];
  const shown = ordered.slice(0, opts.maxElements);
  lines.push(shown.length > 0 ? 'Interactive elements:' : 'Interactive elements: none');
  for (const e of shown) lines.push(elementLine(e, ctx));
  if (ordered.length > shown.length) lines.push(`(${ordered.length - shown.length} more elements not listed)`);
  return lines.join('\n');
}

function feedback(effects: readonly string[]): string {
  return `<tool_response>\n${effects.length > 0 ? effects.map(neutralize).join('\n') : 'no visible effect'}\n</tool_response>`;
}

/** The agent's turn of an earlier step, seen through the history mode. */
export function assistantText(e: HistoryEntry, mode: HistoryMode, ctx: ValidateContext): string {
  if (e.raw !== undefined && e.raw !== '') {
    const t = compressReplyText(e.raw, mode);
    return t !== '' ? t : '(no tool call)';
  }
  // A step of another policy: rebuild a reply from its reasoning and calls.
  const calls = e.calls.map((c) => {
    const args: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(c.args)) args[k] = k.endsWith('point_2d') && Array.isArray(v) ? fromPixels(v as number[], ctx) : v;
    return renderCallBlock(c.name, args);
  });
  const parts = [mode === 'full' ? e.reasoning.trim() : '', ...calls].filter((p) => p !== '');
  return parts.length > 0 ? parts.join('\n') : '(no tool call)';
}

/**
 * The chat request for one decision. `seed` (when given) makes the server's sampling
 * reproducible. Pure: same input and options, same request.
 */
export function renderChatRequest(input: PolicyInput, opts: RenderOptions, seed?: number): ChatRequest {
  const obs = input.observation;
  const ctx: ValidateContext = { coords: opts.coords, viewport: obs.viewport };
  const history = input.history;
  const n = history.length;
  // user turn i shows the page of step i; the last is the current one
  const userTexts: string[] = [];
  for (let i = 0; i <= n; i++) {
    const parts: string[] = [];
    if (i === 0) parts.push(`Task: ${neutralize(input.instruction)}`);
    if (i > 0) {
      const prev = history[i - 1];
      const effects = i === n ? obs.lastEffects : opts.historyMode === 'action_only' ? undefined : (prev?.effects ?? []);
      if (effects !== undefined) parts.push(feedback(effects));
    }
    if (i === n) parts.push(`Step ${n + 1} of at most ${input.maxSteps}.\n${pageText(obs, opts)}`);
    else parts.push(`URL: ${neutralize(history[i]?.url ?? '')}`);
    userTexts.push(parts.join('\n\n'));
  }
  // newest screenshot on the current turn, older ones on the turns before it
  const shots = obs.screenshots.slice(-Math.max(0, opts.screenshots));
  const images = new Map<number, Uint8Array>();
  shots
    .slice()
    .reverse()
    .forEach((s, back) => {
      if (n - back >= 0) images.set(n - back, s);
    });

  const messages: ChatMessage[] = [{ role: 'system', content: systemPrompt(opts, obs) }];
  for (let i = 0; i <= n; i++) {
    const img = images.get(i);
    const text = userTexts[i] ?? '';
    const content: string | ChatContentPart[] = img ? [{ type: 'text', text }, { type: 'image_url', image_url: { url: dataUrl(img) } }] : text;
    messages.push({ role: 'user', content });
    const e = history[i];
    if (i < n && e) messages.push({ role: 'assistant', content: assistantText(e, opts.historyMode, ctx) });
  }

  const req: ChatRequest = { ...requestModel(opts.engine, opts.model, opts.adapter), messages, stream: false };
  if (opts.toolsIn === 'native') {
    req.tools = toolDefinitions(opts.coords);
    req.tool_choice = 'auto';
  }
  if (opts.maxTokens !== undefined) req.max_tokens = opts.maxTokens;
  Object.assign(req, samplerFields(opts.sampler, opts.engine));
  if (seed !== undefined) req.seed = seed;
  if (opts.logprobs) {
    req.logprobs = true;
    if (opts.engine === 'vllm') req.return_token_ids = true;
    if (opts.engine === 'sglang') {
      req.return_token_ids = true;
      req.return_prompt_token_ids = true;
      // releases before chat return_token_ids give the completion ids in meta_info.output_token_logprobs
      req.return_meta_info = true;
    }
  }
  return req;
}

/** The images of a request in order (the ones a token trace references). */
export function requestImages(input: PolicyInput, opts: Pick<RenderOptions, 'screenshots'>): Uint8Array[] {
  const n = input.history.length;
  return input.observation.screenshots.slice(-Math.max(0, opts.screenshots)).slice(-(n + 1));
}
