// What the judge model reads about one trajectory (JudgeInput) and the chat messages built from
// it: the task instruction, the action history step by step (reasoning, tool calls, effects), the
// final answer and, for vision-language judges, the final screenshot as an image part.
import type { Trajectory } from '@owrl/proto';

export interface JudgeAction {
  name: string;
  /** Arguments as JSON text, as the agent called the tool. */
  argsJson: string;
  ok: boolean;
  /** Stable error code when the call failed. */
  errorCode: string;
  /** One short line per observed effect ("navigated to /shop/p/12"). */
  effects: string[];
}

export interface JudgeStep {
  reasoning: string;
  actions: JudgeAction[];
  /** Page URL after the step, when known. */
  url: string;
}

export interface JudgeInput {
  instruction: string;
  startUrl: string;
  steps: JudgeStep[];
  finalAnswer: string;
  /** JPEG of the final page (vision-language judges only). */
  screenshot?: Uint8Array;
}

/** The judge's view of a trajectory (packages/proto Trajectory). */
export function judgeInputFromTrajectory(traj: Trajectory): JudgeInput {
  const task = traj.request?.task;
  return {
    instruction: task?.instruction ?? '',
    startUrl: task?.startUrl ?? '',
    steps: traj.steps.map((s) => ({
      reasoning: s.reasoning,
      url: s.urlAfter,
      actions: s.results.map((r) => ({
        name: r.call?.name ?? '',
        argsJson: r.call?.argsJson ?? '',
        ok: r.ok,
        errorCode: r.errorCode,
        effects: r.effects.map((e) => e.line).filter((l) => l !== ''),
      })),
    })),
    finalAnswer: traj.finalAnswer,
    ...(traj.finalScreenshot.length > 0 ? { screenshot: traj.finalScreenshot } : {}),
  };
}

/**
 * `input` with `f` applied to every text the agent or a page wrote (instruction, URLs, reasoning,
 * tool calls, effects, final answer); the screenshot is kept as it is.
 */
export function mapInputText(input: JudgeInput, f: (s: string) => string): JudgeInput {
  return {
    ...input,
    instruction: f(input.instruction),
    startUrl: f(input.startUrl),
    finalAnswer: f(input.finalAnswer),
    steps: input.steps.map((s) => ({
      reasoning: f(s.reasoning),
      url: f(s.url),
      actions: s.actions.map((a) => ({ ...a, name: f(a.name), argsJson: f(a.argsJson), errorCode: f(a.errorCode), effects: a.effects.map(f) })),
    })),
  };
}

export type ContentPart = { type: 'text'; text: string } | { type: 'image' };
export interface ChatMessage {
  role: 'system' | 'user';
  content: string | ContentPart[];
}

export interface PromptOptions {
  system: string;
  question: string;
  /** Put the screenshot in the prompt as an image part (vision-language judges). */
  image: boolean;
}

/** How a prompt was shortened to fit: the oldest steps dropped, then long fields clipped. */
export interface Shortening {
  /** Number of oldest steps left out. */
  dropSteps: number;
  /** When set, the instruction and final answer are cut to this many characters. */
  clipChars?: number;
}

function clip(s: string, n: number | undefined): string {
  return n === undefined || s.length <= n ? s : `${s.slice(0, n)} …[truncated]`;
}

function renderAction(a: JudgeAction): string {
  const call = a.argsJson === '' ? a.name : `${a.name} ${a.argsJson}`;
  const status = a.ok ? 'ok' : `failed${a.errorCode !== '' ? ` (${a.errorCode})` : ''}`;
  return `Action: ${call} -> ${status}${a.effects.length > 0 ? `: ${a.effects.join('; ')}` : ''}`;
}

function renderStep(s: JudgeStep, n: number): string {
  const lines = [`Step ${n}:`];
  if (s.reasoning !== '') lines.push(`Reasoning: ${s.reasoning}`);
  for (const a of s.actions) lines.push(renderAction(a));
  if (s.url !== '') lines.push(`Page: ${s.url}`);
  return lines.join('\n');
}

/** The user-message text before the screenshot (task, history, final answer). */
export function renderHistory(input: JudgeInput, cut: Shortening = { dropSteps: 0 }): string {
  const parts = [`Task: ${clip(input.instruction, cut.clipChars)}`];
  if (input.startUrl !== '') parts.push(`Start page: ${input.startUrl}`);
  const kept = input.steps.slice(cut.dropSteps);
  const history: string[] = [];
  if (cut.dropSteps > 0) history.push(`(${cut.dropSteps} earlier step${cut.dropSteps === 1 ? '' : 's'} omitted)`);
  kept.forEach((s, i) => history.push(renderStep(s, cut.dropSteps + i + 1)));
  parts.push(history.length > 0 ? `Agent's steps:\n${history.join('\n')}` : "Agent's steps: none");
  parts.push(`Final answer: ${input.finalAnswer === '' ? '(empty)' : clip(input.finalAnswer, cut.clipChars)}`);
  return parts.join('\n\n');
}

/** Chat messages for one judgement: a system message and one user message. */
export function buildMessages(input: JudgeInput, opts: PromptOptions, cut: Shortening = { dropSteps: 0 }): ChatMessage[] {
  const history = renderHistory(input, cut);
  const withImage = opts.image && input.screenshot !== undefined;
  const user: ChatMessage = withImage
    ? {
        role: 'user',
        content: [
          { type: 'text', text: `${history}\n\nFinal screenshot: ` },
          { type: 'image' },
          { type: 'text', text: `\n\n${opts.question}` },
        ],
      }
    : { role: 'user', content: `${history}\n\n${opts.question}` };
  return [{ role: 'system', content: opts.system }, user];
}
