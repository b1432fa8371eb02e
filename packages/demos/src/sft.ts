// SFT records in OpenWebRL's agent format: for every decision of a successful trajectory, the chat
// request the `openai` policy backend would send for that step (the same renderer, so a model
// fine-tuned on these sees at run time exactly what it saw in training) followed by the
// demonstrated reply as the assistant turn (reasoning and <tool_call> blocks). Images go inline as
// data URLs or as files next to the JSONL.
import { assistantText, renderChatRequest, sha256Hex, type ChatContentPart, type ChatMessage, type ChatToolDefinition, type RenderOptions } from '@owrl/llm-policy';
import type { Task } from '@owrl/proto';
import type { DemoStep } from './demo-step.js';

export type ImageMode = 'data-url' | 'files' | 'none';

export interface SftRecord {
  /** `<task id>#<step>` (one record per decision). */
  id: string;
  task_id: string;
  suite: string;
  family: string;
  difficulty: number;
  /** Where the trajectory came from: `solver` (scripted) or `run:<run id>`. */
  source: string;
  /** What decided success: `verifier` or `model`. */
  verdict_source: string;
  step: number;
  steps: number;
  messages: ChatMessage[];
  tools?: ChatToolDefinition[];
}

export interface SftRenderOptions {
  render: RenderOptions;
  images: ImageMode;
  /** Stores one image (images `files`) and returns the URL the record names it by. */
  saveImage?: (bytes: Uint8Array, sha256: string) => string;
}

/** A readable reasoning line for a demonstrated step that has none of its own. */
export function describeStep(step: DemoStep): string {
  const el = (id: unknown): string => {
    const e = step.input.observation.elements.find((x) => x.id === id);
    return e ? `the ${e.role} "${e.name || e.context}"`.slice(0, 120) : `element ${String(id)}`;
  };
  const parts = step.calls.map((c) => {
    const a = c.args as Record<string, unknown>;
    switch (c.name) {
      case 'click':
        return `click ${el(a['element_id'])}`;
      case 'write':
        return `type "${String(a['message'])}"${a['element_id'] !== undefined ? ` into ${el(a['element_id'])}` : ''}`;
      case 'press_keys':
        return `press ${(a['keys'] as string[]).join('+')}`;
      case 'scroll':
        return `scroll ${String(a['direction'])}`;
      case 'go_back':
        return 'go back';
      case 'done':
        return String(a['response']) === 'ok' ? 'finish: the task is done' : `answer "${String(a['response'])}"`;
      default:
        return c.name;
    }
  });
  return `To make progress on the task I will ${parts.join(', then ')}.`;
}

function mapImages(messages: ChatMessage[], o: SftRenderOptions): ChatMessage[] {
  if (o.images === 'data-url') return messages;
  return messages.map((m) => {
    if (typeof m.content === 'string') return m;
    const parts = m.content.flatMap((p): ChatContentPart[] => {
      if (p.type !== 'image_url') return [p];
      if (o.images === 'none') return [];
      const b64 = p.image_url.url.slice(p.image_url.url.indexOf(',') + 1);
      const bytes = new Uint8Array(Buffer.from(b64, 'base64'));
      if (!o.saveImage) throw new Error('images "files" needs saveImage');
      return [{ ...p, image_url: { url: o.saveImage(bytes, sha256Hex(bytes)) } }];
    });
    const only = parts.length === 1 ? parts[0] : undefined;
    return { ...m, content: only?.type === 'text' ? only.text : parts };
  });
}

/** One record per decision of a successful trajectory of `task`. */
export function sftRecords(task: Task, steps: readonly DemoStep[], meta: { source: string; verdictSource: string }, o: SftRenderOptions): SftRecord[] {
  return steps.map((s, i) => {
    const req = renderChatRequest(s.input, o.render);
    const ctx = { coords: o.render.coords, viewport: s.input.observation.viewport };
    const reply = assistantText({ step: i, reasoning: s.reasoning, calls: s.calls, effects: [], url: s.input.observation.url, ...(s.raw ? { raw: s.raw } : {}) }, 'full', ctx);
    const messages: ChatMessage[] = [...mapImages(req.messages, o), { role: 'assistant', content: reply }];
    return {
      id: `${task.id}#${i}`,
      task_id: task.id,
      suite: task.suite,
      family: task.family,
      difficulty: task.difficulty,
      source: meta.source,
      verdict_source: meta.verdictSource,
      step: i,
      steps: steps.length,
      messages,
      ...(req.tools ? { tools: req.tools } : {}),
    };
  });
}
