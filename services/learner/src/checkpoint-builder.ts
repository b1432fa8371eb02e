// The learner's checkpoint, built from the parts that hold its state at a round end: the model and
// optimizer, the run state's counters and rounds, and the loop's own state (scheduler, RNG, host
// windows, curriculum stage, settled ids, staleness; in async mode the groups carried into the
// next round and an update written ahead but not yet trained).
import type { SeededRng } from '@owrl/core';
import type { PointerModel } from '@owrl/policy';
import type { Curriculum, GrpoTrainer } from '@owrl/rl';
import { bigMapToJson, type CheckpointData, type CheckpointStore, type PendingUpdateJson } from './checkpoint.js';
import type { HostGuard } from './host-guard.js';
import type { LearnerState } from './learner-state.js';
import type { RoundLedger } from './round-ledger.js';
import type { RunStateStore } from './run-state-store.js';
import type { TaskScheduler } from './scheduler.js';
import type { StalenessBook } from './staleness.js';

export interface CheckpointSources {
  checkpoints: CheckpointStore;
  store: RunStateStore;
  model: PointerModel;
  trainer: GrpoTrainer;
  scheduler: TaskScheduler;
  rng: SeededRng;
  hosts: HostGuard;
  curriculum: Curriculum;
  stale: StalenessBook;
  state: LearnerState;
}

/** Where in the run a checkpoint is taken. */
export interface CheckpointAt {
  /** The round a resume starts with. */
  nextRound: number;
  /** Ids settled at the last two round ends. */
  settledIds: string[];
  /** Async mode: the next round's carried-over groups, when round.json does not hold them. */
  carry: RoundLedger | null;
  /** Async mode: the update written ahead and not yet trained into these weights. */
  pendingUpdate?: PendingUpdateJson;
}

export class CheckpointBuilder {
  constructor(private readonly src: CheckpointSources) {}

  build(at: CheckpointAt): CheckpointData {
    const { store, scheduler, rng, hosts, curriculum, stale, state } = this.src;
    const s = store.mutable;
    return {
      nextRound: at.nextRound,
      policyVersion: state.policyVersion,
      model: this.src.model,
      optimizer: this.src.trainer.optimizer,
      counters: s.counters!,
      rounds: s.rounds,
      loop: {
        scheduler: scheduler.snapshot(),
        rng: rng.state,
        hostWindows: hosts.snapshot(),
        curriculumStage: curriculum.stageForRound(at.nextRound),
        settledIds: at.settledIds,
        terminations: bigMapToJson(s.terminations),
        excluded: bigMapToJson(s.excluded),
        ...(at.carry ? { carry: at.carry.toJSON() } : {}),
        staleness: { counts: stale.counts(), dropped: Number(s.counters!.staleDropped) },
        ...(at.pendingUpdate ? { pendingUpdate: at.pendingUpdate } : {}),
      },
    };
  }

  /** Builds and saves the checkpoint. @throws FatalRunError CHECKPOINT_FAILED when it cannot be written. */
  save(at: CheckpointAt): void {
    this.src.checkpoints.save(this.build(at));
  }
}
