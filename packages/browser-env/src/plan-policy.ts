// A scripted policy that follows a plan written against the page's accessible names, for scripted
// solvers of task families and for smoke tests of sites: every plan entry is one policy step whose
// targets are resolved to element ids in the current observation, so the episode runs through the
// same 13 tools, effects and terminations a learned policy gets.
import type { ElementInfo, ToolCallSpec } from '@owrl/core';
import { OwrlError } from '@owrl/core';
import type { EpisodePolicy, PolicyInput, StepDecision } from './types.js';

/** An element of the observation, by role and accessible name (exact string or pattern). */
export interface PlanTarget {
  name: string | RegExp;
  /** Role (`link`, `button`, `textbox`, `searchbox`, `combobox`, `checkbox`...); any when absent. */
  role?: string | readonly string[];
  /** The element's item container text (card, row) must contain / match this. */
  context?: string | RegExp;
  /** Which of several matches, in document order (default 0). */
  nth?: number;
}

/** One call of a plan step. */
export type PlanCall =
  | { click: PlanTarget }
  | { hover: PlanTarget }
  /** Clicks the field, then writes (write clears the focused field first). */
  | { write: string; into: PlanTarget }
  | { press: string[] }
  | { scroll: 'up' | 'down'; amount?: number }
  | { goto: string }
  | { back: true }
  | { wait: number }
  | { done: string };

/** One policy step: calls, or a function of the observation that returns them. */
export type PlanStep = PlanCall | readonly PlanCall[] | ((input: PolicyInput) => PlanCall | readonly PlanCall[]);

export const PlanErrorCode = {
  /** A plan target names no element of the current observation; the message lists what is there. */
  TargetNotFound: 'PLAN_TARGET_NOT_FOUND',
} as const;
export type PlanErrorCode = (typeof PlanErrorCode)[keyof typeof PlanErrorCode];

export class PlanError extends OwrlError<PlanErrorCode> {
  override readonly name = 'PlanError';
}

export function isPlanError(e: unknown, code?: PlanErrorCode): e is PlanError {
  return e instanceof PlanError && (code === undefined || e.code === code);
}

function matches(v: string, want: string | RegExp): boolean {
  return typeof want === 'string' ? v.trim() === want : want.test(v);
}

/** The element `t` names in `elements`, or a PlanError listing what is there. */
export function findElement(elements: readonly ElementInfo[], t: PlanTarget): ElementInfo {
  const roles = t.role === undefined ? undefined : typeof t.role === 'string' ? [t.role] : t.role;
  const found = elements.filter(
    (e) =>
      matches(e.name, t.name) &&
      (roles === undefined || roles.includes(e.role)) &&
      (t.context === undefined || (typeof t.context === 'string' ? e.context.includes(t.context) : t.context.test(e.context))),
  );
  const el = found[t.nth ?? 0];
  if (el === undefined) {
    const near = elements
      .filter((e) => roles === undefined || roles.includes(e.role))
      .slice(0, 40)
      .map((e) => `${e.role} ${JSON.stringify(e.name)}`);
    throw new PlanError(
      PlanErrorCode.TargetNotFound,
      `no ${roles?.join('|') ?? 'element'} named ${String(t.name)}${t.context === undefined ? '' : ` in ${String(t.context)}`}` +
        `${t.nth ? ` (#${t.nth})` : ''} (${found.length} matches); have: ${near.join(', ')}`,
    );
  }
  return el;
}

function toCalls(c: PlanCall, elements: readonly ElementInfo[]): ToolCallSpec[] {
  if ('click' in c) return [{ name: 'click', args: { element_id: findElement(elements, c.click).id } }];
  if ('hover' in c) return [{ name: 'hover', args: { element_id: findElement(elements, c.hover).id } }];
  if ('write' in c) {
    const id = findElement(elements, c.into).id;
    return [
      { name: 'click', args: { element_id: id } },
      { name: 'write', args: { message: c.write } },
    ];
  }
  if ('press' in c) return [{ name: 'press_keys', args: { keys: c.press } }];
  if ('scroll' in c) return [{ name: 'scroll', args: { direction: c.scroll, amount: c.amount ?? 0.8 } }];
  if ('goto' in c) return [{ name: 'goto_url', args: { url: c.goto } }];
  if ('back' in c) return [{ name: 'go_back', args: {} }];
  if ('wait' in c) return [{ name: 'wait', args: { seconds: c.wait } }];
  return [{ name: 'done', args: { response: c.done } }];
}

/**
 * Plays `plan` one entry per step. A target that is not on the page throws PlanError, which the
 * runner reports as SANDBOX_ERROR `policy_error` with the message (so a broken solver is visible).
 * After the plan is spent it calls done('') (an unfinished plan then fails the verifier).
 */
export class PlanPolicy implements EpisodePolicy<undefined> {
  readonly needsScreenshot = false;
  /** Inputs seen, in order (for assertions on observations and effects). */
  readonly inputs: PolicyInput[] = [];

  constructor(private readonly plan: readonly PlanStep[]) {}

  decide(input: PolicyInput): Promise<StepDecision<undefined>> {
    this.inputs.push(input);
    const entry = this.plan[input.step];
    if (entry === undefined) return Promise.resolve({ reasoning: 'plan finished', calls: [{ name: 'done', args: { response: '' } }] });
    try {
      const resolved = typeof entry === 'function' ? entry(input) : entry;
      const list: readonly PlanCall[] = Array.isArray(resolved) ? resolved : [resolved as PlanCall];
      const calls = list.flatMap((c) => toCalls(c, input.observation.elements));
      return Promise.resolve({ reasoning: `plan step ${input.step + 1}/${this.plan.length}`, calls });
    } catch (e) {
      return Promise.reject(e instanceof Error ? e : new Error(String(e)));
    }
  }
}
