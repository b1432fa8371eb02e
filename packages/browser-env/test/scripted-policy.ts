// Test policy that replays a fixed list of decisions (or computes them from the observation) and
// records every input it was given, and the helpers the episode tests write their scripts with.
import assert from 'node:assert/strict';
import type { EpisodePolicy, PolicyInput, StepDecision } from '../src/index.js';

/** One tool call of a scripted step (any name: the tests also send unknown tools). */
export const call = (name: string, args: Record<string, unknown> = {}): { name: never; args: Record<string, unknown> } => ({ name: name as never, args });
/** A scripted step making `calls`. */
export const step = (...calls: ReturnType<typeof call>[]): StepDecision<string> => ({ reasoning: 'r', calls });
/** The id of the observed element named `name`. @throws AssertionError listing the names seen. */
export const byName = (input: PolicyInput, name: string): number => {
  const el = input.observation.elements.find((e) => e.name === name);
  assert.ok(el, `no element named ${name} in ${input.observation.elements.map((e) => e.name).join(', ')}`);
  return el.id;
};

export type Script = Array<StepDecision<string> | ((input: PolicyInput) => StepDecision<string>)>;

export class ScriptedPolicy implements EpisodePolicy<string> {
  readonly needsScreenshot: boolean;
  readonly inputs: PolicyInput[] = [];
  private readonly script: Script;

  constructor(script: Script, needsScreenshot = false) {
    this.script = script;
    this.needsScreenshot = needsScreenshot;
  }

  decide(input: PolicyInput): Promise<StepDecision<string>> {
    this.inputs.push(input);
    const s = this.script[Math.min(input.step, this.script.length - 1)];
    if (!s) return Promise.resolve({ reasoning: 'nothing to do', calls: [{ name: 'wait', args: { seconds: 0 } }] });
    return Promise.resolve(typeof s === 'function' ? s(input) : s);
  }
}
