// Resuming a run (OWRL_RESUME=1) from what the last incarnation saved: the loop's state from the
// checkpoint, the update it had written ahead but not trained, and the round in progress from
// round.json — or, in async mode before that round saved itself, from the groups the checkpoint
// carried over. A reopened round keeps its ledger and counts; the slots still waiting for a
// result get new ids of this incarnation and are dispatched again (the earlier ids stay
// acceptable: whichever result comes first fills the slot).
import type { SeededRng, Logger } from '@owrl/core';
import { fromJson, RoundSummarySchema, type RoundSummary } from '@owrl/proto';
import { bigMapFromJson, countersFromJson, countersToJson, type CheckpointStore, type RestoredCheckpoint } from './checkpoint.js';
import type { HostGuard } from './host-guard.js';
import type { LearnerState } from './learner-state.js';
import type { Redispatch } from './round-group.js';
import type { RoundFile } from './round-file.js';
import { RoundLedger } from './round-ledger.js';
import type { RoundStats } from './round-stats.js';
import type { RunStateStore } from './run-state-store.js';
import type { TaskScheduler } from './scheduler.js';
import { SettledIds } from './settled-ids.js';
import type { StalenessBook } from './staleness.js';

/** The parts that take their state back from a checkpoint. */
export interface ResumeParts {
  state: LearnerState;
  scheduler: TaskScheduler;
  rng: SeededRng;
  hosts: HostGuard;
  stale: StalenessBook;
  store: RunStateStore;
  logger: Logger;
  incarnation: number;
}

/** Puts the checkpoint's state back: the version, the loop's own state, and the run state's counters, rounds and round. */
export function restoreLoop(restored: RestoredCheckpoint, p: ResumeParts): void {
  p.state.policyVersion = restored.policyVersion;
  const loop = restored.loop;
  if (loop) {
    p.scheduler.restore(loop.scheduler);
    p.rng.state = loop.rng;
    p.hosts.restore(loop.hostWindows);
    p.state.settled = new SettledIds(loop.settledIds);
    if (loop.staleness) p.stale.restore(loop.staleness.counts);
  }
  p.store.change('snapshot', (s) => {
    s.counters = restored.counters;
    s.rounds = restored.rounds;
    s.round = BigInt(restored.nextRound);
    s.policyVersion = BigInt(restored.policyVersion);
    if (loop) {
      s.terminations = bigMapFromJson(loop.terminations);
      s.excluded = bigMapFromJson(loop.excluded);
    }
  });
  p.logger.info({ round: restored.nextRound, policyVersion: restored.policyVersion, incarnation: p.incarnation }, 'resumed from checkpoint');
}

/** An update checkpointed as written ahead, not yet trained into the restored weights: it is trained again. */
export function writtenAheadUpdate(restored: RestoredCheckpoint | null): { round: number; target: number; summary: RoundSummary } | null {
  const pu = restored?.loop?.pendingUpdate;
  return pu ? { round: pu.round, target: pu.target, summary: fromJson(RoundSummarySchema, pu.summary as never) } : null;
}

/**
 * The round in progress at a crash (also before the first checkpoint), to resume as round
 * `round`: round.json's when it is that round's, else in async mode the groups the checkpoint
 * carried over; null when there is neither.
 */
export function roundToResume(checkpoints: CheckpointStore, restored: RestoredCheckpoint | null, round: number): RoundFile | null {
  return checkpoints.loadRound(round) ?? carriedRound(restored);
}

/** Async mode: the round a checkpoint carried over, when round.json was not written for it yet. */
function carriedRound(restored: RestoredCheckpoint | null): RoundFile | null {
  const loop = restored?.loop;
  if (!restored || !loop?.carry || loop.carry.round !== restored.nextRound) return null;
  return { ledger: loop.carry, counters: countersToJson(restored.counters), terminations: loop.terminations, excluded: loop.excluded, round: {} };
}

/**
 * Reopens a saved round under this incarnation: its ledger, the run state's counters and the
 * round's stats as they were saved. Returns the ledger and the slots to dispatch again.
 */
export function reopenRound(resumed: RoundFile, incarnation: number, store: RunStateStore, stats: RoundStats): { ledger: RoundLedger; missing: Redispatch[] } {
  const ledger = RoundLedger.restore(resumed.ledger, incarnation);
  store.change('snapshot', (s) => {
    s.counters = countersFromJson(resumed.counters);
    s.terminations = bigMapFromJson(resumed.terminations);
    s.excluded = bigMapFromJson(resumed.excluded);
  });
  stats.restore(resumed.round ?? {});
  return { ledger, missing: ledger.redispatchMissing() };
}
