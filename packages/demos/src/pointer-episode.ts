// The pointer policy in TypeScript as an episode policy (the learner's float64 model, no ONNX):
// candidates, a sample (or the argmax) under the model, the candidate's calls. For held-out
// measurements of a policy the learner holds, e.g. right after warm-up.
import { mulberry32, type Rng } from '@owrl/core';
import type { EpisodePolicy, PolicyInput, StepDecision } from '@owrl/browser-env';
import { buildCandidates, sampleIndex, type CandidateOptions, type PointerModel } from '@owrl/policy';

export class PointerEpisodePolicy implements EpisodePolicy<undefined> {
  readonly needsScreenshot = false;
  private readonly rng: Rng;

  constructor(
    private readonly model: PointerModel,
    opts: { seed?: number; greedy?: boolean; candidates?: CandidateOptions } = {},
  ) {
    this.rng = mulberry32(opts.seed ?? 1);
    this.greedy = opts.greedy ?? false;
    this.candidates = { ...opts.candidates, dim: model.dim };
  }

  private readonly greedy: boolean;
  private readonly candidates: CandidateOptions;

  decide(input: PolicyInput): Promise<StepDecision<undefined>> {
    const cands = buildCandidates(input, this.candidates);
    const lp = this.model.logProbs(cands.map((c) => c.features));
    let i = 0;
    if (this.greedy) {
      for (let k = 1; k < lp.length; k++) if ((lp[k] ?? -Infinity) > (lp[i] ?? -Infinity)) i = k;
    } else i = sampleIndex(lp, this.rng);
    const c = cands[i];
    if (!c) return Promise.reject(new Error('no candidate actions'));
    return Promise.resolve({ reasoning: `${c.label} (p=${Math.exp(lp[i] ?? -Infinity).toFixed(2)})`, calls: c.calls });
  }
}
