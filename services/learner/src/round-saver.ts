// When the round in progress is saved (round-file.ts holds how): whole when its ledger was not
// saved yet (a new, resumed or carried-over round) or the journal has grown past the whole file,
// else only what changed since the last save, appended to the journal. The whole ledger of a large
// fleet's pending groups is megabytes; writing it after every dispatch batch and result made the
// learner's ingestion O(pending groups) per trajectory.
import { bigMapToJson, countersToJson, type CheckpointStore } from './checkpoint.js';
import type { RoundLedger } from './round-ledger.js';
import type { RoundStats } from './round-stats.js';
import type { RunStateStore } from './run-state-store.js';

/** Longest time ingested results wait for their round save while more keep arriving. */
const ROUND_SAVE_MS = 500;

export class RoundSaver {
  /** The round changed since its last save (saveSoon). */
  private dirty = false;
  private savedAt = 0;
  /** The ledger the round file holds (saved whole once, then journalled). */
  private fileLedger: RoundLedger | null = null;

  /** `queued`: results waiting to be taken in (a save waits for them, within ROUND_SAVE_MS). */
  constructor(
    private readonly checkpoints: CheckpointStore,
    private readonly store: RunStateStore,
    private readonly queued: () => number,
  ) {}

  /** Saves the round now. @throws FatalRunError CHECKPOINT_FAILED when it cannot be written. */
  save(ledger: RoundLedger, stats: RoundStats): void {
    this.dirty = false;
    this.savedAt = Date.now();
    const s = this.store.mutable;
    const common = { counters: countersToJson(s.counters!), terminations: bigMapToJson(s.terminations), excluded: bigMapToJson(s.excluded) };
    if (this.fileLedger !== ledger || this.checkpoints.roundSaveDue()) {
      ledger.markSaved();
      stats.markSaved();
      this.checkpoints.saveRound({ ledger: ledger.toJSON(), ...common, round: stats.toJSON() });
      this.fileLedger = ledger;
    } else {
      this.checkpoints.appendRound({ ledger: ledger.takeDelta(), ...common, round: stats.takeDelta() });
    }
  }

  /**
   * Saves the round soon after an ingest: at once when no other result is queued, else at most
   * every ROUND_SAVE_MS. What a crash loses in between is safe: those results are still unacked,
   * come back, and are taken again (their slots were still in flight in the saved ledger);
   * re-dispatches and abandonments are still saved before they take effect.
   */
  saveSoon(ledger: RoundLedger, stats: RoundStats): void {
    this.dirty = true;
    if (this.queued() === 0 || Date.now() - this.savedAt >= ROUND_SAVE_MS) this.save(ledger, stats);
  }

  /** Nothing left to take in: what saveSoon() deferred is saved before the loop waits. */
  flush(ledger: RoundLedger, stats: RoundStats): void {
    if (this.dirty && this.queued() === 0) this.save(ledger, stats);
  }
}
