// Parsing a model reply into reasoning and an ordered chain of validated tool calls. Tool calls
// come natively (`message.tool_calls`, when the server runs a tool parser) or written in the text
// the way Qwen models emit them — <tool_call>{"name": ..., "arguments": {...}}</tool_call>, any
// number of them — with reasoning before them and/or inside <think>...</think>. A reply with no
// call, a malformed or unterminated block, an unknown tool or bad arguments is unparseable as a
// whole (no call of it runs) and says why. Pure logic.
import type { ToolCallSpec } from '@owrl/core';
import type { ReplyMessage, WireToolCall } from './chat-types.js';
import { validateToolCall, type ValidateContext } from './tool-validate.js';

export const THINK_OPEN = '<think>';
export const THINK_CLOSE = '</think>';
export const CALL_OPEN = '<tool_call>';
export const CALL_CLOSE = '</tool_call>';

export interface ParsedReply {
  /** Thinking and free text of the reply, tool calls removed. */
  reasoning: string;
  /** Validated calls in order (empty when `error` is set). */
  calls: ToolCallSpec[];
  /** Why the reply is unparseable; absent when it parsed. */
  error?: string;
  /**
   * The reply as the model wrote it, native calls rendered as <tool_call> blocks (the form a
   * Qwen chat template gives them): replayed to the model as its earlier turn.
   */
  text: string;
}

interface Split {
  thinking: string[];
  free: string[];
  blocks: string[];
  error?: string;
}

/** Splits reply text into thinking, free text and tool-call blocks. */
function splitText(content: string): Split {
  const out: Split = { thinking: [], free: [], blocks: [] };
  let rest = content;
  // A server that prefilled <think> returns the text from inside the block: only the close is there.
  const close = rest.indexOf(THINK_CLOSE);
  const open = rest.indexOf(THINK_OPEN);
  if (close >= 0 && (open < 0 || open > close)) {
    out.thinking.push(rest.slice(0, close));
    rest = rest.slice(close + THINK_CLOSE.length);
  }
  for (;;) {
    const t = rest.indexOf(THINK_OPEN);
    const c = rest.indexOf(CALL_OPEN);
    if (t < 0 && c < 0) {
      out.free.push(rest);
      break;
    }
    if (t >= 0 && (c < 0 || t < c)) {
      out.free.push(rest.slice(0, t));
      const end = rest.indexOf(THINK_CLOSE, t);
      if (end < 0) {
        out.thinking.push(rest.slice(t + THINK_OPEN.length));
        break;
      }
      out.thinking.push(rest.slice(t + THINK_OPEN.length, end));
      rest = rest.slice(end + THINK_CLOSE.length);
      continue;
    }
    out.free.push(rest.slice(0, c));
    const end = rest.indexOf(CALL_CLOSE, c);
    if (end < 0) {
      out.error = `unterminated ${CALL_OPEN} (the reply ends inside a tool call)`;
      break;
    }
    out.blocks.push(rest.slice(c + CALL_OPEN.length, end));
    rest = rest.slice(end + CALL_CLOSE.length);
  }
  return out;
}

/** A text tool-call block as {name, arguments}, or an error sentence. */
function parseBlock(block: string, n: number): WireToolCall | string {
  const body = block.trim();
  if (body === '') return `tool call ${n} is empty`;
  let v: unknown;
  try {
    v = JSON.parse(body);
  } catch (e) {
    return `tool call ${n} is not valid JSON (${(e as Error).message}): ${body.slice(0, 80)}`;
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return `tool call ${n} must be a JSON object {"name": ..., "arguments": {...}}`;
  const o = v as Record<string, unknown>;
  if (typeof o['name'] !== 'string' || o['name'] === '') return `tool call ${n} has no "name"`;
  return { name: o['name'], arguments: o['arguments'] ?? o['parameters'] ?? {} };
}

function argsObject(a: unknown): unknown {
  if (typeof a !== 'string') return a;
  try {
    return JSON.parse(a) as unknown;
  } catch {
    return a;
  }
}

/** Canonical JSON of a call, for rendering and de-duplication. */
export function callJson(name: string, args: unknown): string {
  return JSON.stringify({ name, arguments: argsObject(args) ?? {} });
}

export function renderCallBlock(name: string, args: unknown): string {
  return `${CALL_OPEN}\n${callJson(name, args)}\n${CALL_CLOSE}`;
}

function clean(parts: string[]): string {
  return parts
    .map((p) => p.trim())
    .filter((p) => p !== '')
    .join('\n\n');
}

/** Parses and validates a reply. Native calls come first, then text calls that are not copies of them. */
export function parseReply(reply: ReplyMessage, ctx: ValidateContext): ParsedReply {
  const split = splitText(reply.content);
  const reasoning = clean([reply.reasoning, ...split.thinking, ...split.free]);
  const nativeBlocks = reply.toolCalls.map((c) => renderCallBlock(c.name, c.arguments));
  const text = [reply.reasoning.trim() !== '' ? `${THINK_OPEN}\n${reply.reasoning.trim()}\n${THINK_CLOSE}\n\n` : '', reply.content, nativeBlocks.length > 0 && reply.content !== '' ? '\n' : '', nativeBlocks.join('\n')].join('');
  const bad = (error: string): ParsedReply => ({ reasoning, calls: [], error, text });
  if (split.error) return bad(split.error);

  const wire: WireToolCall[] = [...reply.toolCalls];
  const seen = new Set(reply.toolCalls.map((c) => callJson(c.name, c.arguments)));
  for (const [i, block] of split.blocks.entries()) {
    const parsed = parseBlock(block, reply.toolCalls.length + i + 1);
    if (typeof parsed === 'string') return bad(parsed);
    const key = callJson(parsed.name, parsed.arguments);
    if (seen.has(key)) continue; // the server kept the text of a call it also parsed
    seen.add(key);
    wire.push(parsed);
  }
  if (wire.length === 0) return bad(`no tool call in the reply: call one of the tools, e.g. ${CALL_OPEN}{"name": "click", "arguments": {...}}${CALL_CLOSE}`);
  const calls: ToolCallSpec[] = [];
  for (const [i, c] of wire.entries()) {
    const r = validateToolCall(c.name, argsObject(c.arguments), ctx);
    if (!r.ok) return bad(wire.length > 1 ? `call ${i + 1} of ${wire.length}: ${r.error}` : r.error);
    calls.push(r.call);
  }
  return { reasoning, calls, text };
}

/**
 * A reply text seen through a history mode: `full` as written, `hide_thinking` without its
 * <think> blocks, `action_only` with nothing but its tool-call blocks.
 */
export function compressReplyText(text: string, mode: 'full' | 'hide_thinking' | 'action_only'): string {
  if (mode === 'full') return text;
  const split = splitText(text);
  if (mode === 'action_only') return split.blocks.map((b) => `${CALL_OPEN}${b}${CALL_CLOSE}`).join('\n');
  // hide_thinking: the text with every thinking span cut out
  let out = text;
  const close = out.indexOf(THINK_CLOSE);
  const open = out.indexOf(THINK_OPEN);
  if (close >= 0 && (open < 0 || open > close)) out = out.slice(close + THINK_CLOSE.length);
  out = out.replace(/<think>[\s\S]*?(<\/think>|$)/g, '');
  return out.trim();
}
