// Rollout-length curriculum: a list of (rounds, maxSteps) stages; the last stage continues after
// the list ends. Rounds are 0-based.
import { DEFAULTS, type CurriculumStage } from '@owrl/core';
import { RlError, RlErrorCode } from './errors.js';

export class Curriculum {
  readonly stages: readonly CurriculumStage[];

  constructor(stages: readonly CurriculumStage[] = DEFAULTS.curriculum) {
    if (stages.length === 0) throw new RlError(RlErrorCode.InvalidArgument, 'curriculum has no stages');
    stages.forEach((s, i) => {
      if (!Number.isInteger(s.rounds) || s.rounds < 1) throw new RlError(RlErrorCode.InvalidArgument, `curriculum[${i}].rounds is ${s.rounds}; expected an integer >= 1`);
      if (!Number.isInteger(s.maxSteps) || s.maxSteps < 1) throw new RlError(RlErrorCode.InvalidArgument, `curriculum[${i}].maxSteps is ${s.maxSteps}; expected an integer >= 1`);
    });
    this.stages = stages.map((s) => ({ rounds: s.rounds, maxSteps: s.maxSteps }));
  }

  /** Index of the stage that round `round` (0-based) falls in. */
  stageForRound(round: number): number {
    if (!Number.isInteger(round) || round < 0) throw new RlError(RlErrorCode.InvalidArgument, `round is ${round}; expected an integer >= 0`);
    let end = 0;
    for (let i = 0; i < this.stages.length; i++) {
      end += this.stages[i]?.rounds ?? 0;
      if (round < end) return i;
    }
    return this.stages.length - 1;
  }

  maxStepsForRound(round: number): number {
    return this.stages[this.stageForRound(round)]?.maxSteps ?? 1;
  }

  /** Rounds covered by the listed stages (the last stage continues beyond). */
  get totalRounds(): number {
    return this.stages.reduce((a, s) => a + s.rounds, 0);
  }
}
