// Async mode: a finished round's update, training (off the loop's thread) while the next round
// goes on. Its request is written ahead and checkpointed before it starts (the round's results
// are acked then); it is committed — the version moves on, the round's summary is recorded, the
// trained weights are checkpointed, then published — once it has trained: at the next round's
// first turn after that, or before that round's own update at the latest.
import type { RoundSummary } from '@owrl/proto';
import type { UpdateStats } from '@owrl/rl';
import type { Logger } from '@owrl/core';
import type { CheckpointBuilder } from './checkpoint-builder.js';
import type { CrashPoints } from './crash-point.js';
import type { LearnerState } from './learner-state.js';
import type { LearnerMetrics } from './metrics.js';
import type { PolicyPublisher } from './publisher.js';
import type { RoundLedger } from './round-ledger.js';
import type { RoundSaver } from './round-saver.js';
import type { RoundStats } from './round-stats.js';
import { logRoundFinished } from './round-summary.js';
import type { RunStateStore } from './run-state-store.js';
import { publishVersion, recordUpdate } from './update-record.js';

export interface PendingUpdateDeps {
  runId: string;
  publisher: PolicyPublisher;
  checkpoint: CheckpointBuilder;
  saver: RoundSaver;
  state: LearnerState;
  store: RunStateStore;
  crash: CrashPoints;
  metrics: LearnerMetrics;
  logger: Logger;
  /** Wakes the loop (an update ended while it waits for results). */
  wake: () => void;
}

/** The round-finished log line's carried-over groups and their rollouts in flight. */
export type CarriedFigures = { carried: number; inFlight: number } | null;

interface Training {
  round: number;
  /** The version it makes. */
  target: number;
  /** The round's summary, update health filled in at the commit. */
  summary: RoundSummary;
  training: Promise<UpdateStats>;
  trainStart: number;
  /** When it ended (trained or failed); null while it trains. */
  trainedAt: number | null;
  carried: CarriedFigures;
}

export class PendingUpdate {
  private current: Training | null = null;

  constructor(private readonly d: PendingUpdateDeps) {}

  /** Starts training the written-ahead update of `round` to `target` off the loop's thread. */
  start(round: number, target: number, summary: RoundSummary, carried: CarriedFigures): void {
    const p: Training = { round, target, summary, training: this.d.publisher.trainAhead(target), trainStart: Date.now(), trainedAt: null, carried };
    const ended = () => {
      p.trainedAt = Date.now();
      this.d.wake();
    };
    p.training.then(ended, ended);
    this.current = p;
  }

  /** Whether an update is written ahead and not committed yet (training, or trained). */
  get pending(): boolean {
    return this.current !== null;
  }

  /** Whether the pending update has ended (trained or failed): it is committed at the loop's next turn. */
  get ended(): boolean {
    return this.current?.trainedAt != null;
  }

  /** Version the next update starts from: one past the policy's while an update trains. */
  trainBase(): number {
    return this.current?.target ?? this.d.state.policyVersion;
  }

  /**
   * Commits the pending update (if any), waiting for it to train: the version moves on, the
   * round's summary is recorded, the trained weights are checkpointed, then published. `ledger`
   * is the round in progress, whose ledger the checkpoint carries (saved first with `stats`, so
   * its round file agrees), or the carried-over groups of a round not started yet.
   * @throws the update's error (the trainer failed).
   */
  async commit(ledger: RoundLedger | null, stats: RoundStats | null): Promise<void> {
    const p = this.current;
    if (!p) return;
    this.current = null;
    const { store, metrics, state, publisher } = this.d;
    const { summary } = p;
    const u = await p.training;
    const counters = store.mutable.counters!;
    recordUpdate(summary, u, publisher.takeOutcome(p.target), ((p.trainedAt ?? Date.now()) - p.trainStart) / 1000, counters, metrics);
    state.policyVersion = p.target;
    counters.updates += 1n;
    this.d.crash.hit('after_update');
    metrics.successRate.set(summary.successRate);
    store.change('update', (s) => {
      s.rounds.push(summary);
      s.policyVersion = BigInt(state.policyVersion);
    });
    // The round in progress is saved to round.json (whole or as a journal line) just before, and a
    // resume prefers round.json of the checkpoint's next round to the checkpoint's carry: carrying
    // the ledger again would serialize thousands of pending groups a second time per round (at
    // 8000 slots about a second of the loop on a loaded machine). Without its stats the ledger is
    // not saved here, so the checkpoint carries it.
    const saved = ledger !== null && stats !== null;
    if (saved) this.d.saver.save(ledger, stats);
    this.d.checkpoint.save({ nextRound: p.round + 1, settledIds: state.settled.toJSON(), carry: saved ? null : ledger });
    publisher.settleAhead(p.target);
    await publishVersion(publisher, state.policyVersion, summary, metrics);
    metrics.policyVersion.set(state.policyVersion);
    logRoundFinished(this.d.logger, this.d.runId, p.round, state.policyVersion, summary, p.carried);
  }
}
