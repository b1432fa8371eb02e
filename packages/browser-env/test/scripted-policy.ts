// Test policy that replays a fixed list of decisions (or computes them from the observation) and
// records every input it was given.
import type { EpisodePolicy, PolicyInput, StepDecision } from '../src/index.js';

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
