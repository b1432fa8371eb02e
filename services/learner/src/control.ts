// The learner's control surface behind gRPC: pause/resume and the read side (groups of recent
// rounds, a trajectory by id), over the ledgers of the round in progress and the last
// `keepRounds` finished rounds. Older ledgers, with their scored trajectories, are released so a
// long run's memory stays bounded; asking for one answers ROUND_RELEASED (gRPC NOT_FOUND) rather
// than an empty list. Round summaries outlive them (RunState.rounds, the checkpoint's rounds.jsonl).
import { parseTrajectoryId } from '@owrl/core';
import { make, GroupInfoSchema, ListGroupsResponseSchema, RunPhase, type ListGroupsResponse, type ScoredTrajectory } from '@owrl/proto';
import { ControlError, ControlErrorCode } from './errors.js';
import type { LearnerControl } from './grpc-server.js';
import type { RoundLedger } from './round-ledger.js';
import type { RunStateStore } from './run-state-store.js';

/** Finished rounds whose ledgers stay readable unless configured (OWRL_KEEP_ROUNDS). */
export const DEFAULT_KEEP_ROUNDS = 20;

export interface RunControlOptions {
  /** Finished rounds whose groups and trajectories stay readable; default DEFAULT_KEEP_ROUNDS. */
  keepRounds?: number;
}

export class RunControl implements LearnerControl {
  /** Ledgers by round, oldest first; the last one is the round in progress (or the last run). */
  private readonly history: RoundLedger[] = [];
  private readonly keepRounds: number;
  /** Rounds released so far: below this, a round's ledger is gone. */
  private releasedBelow = 0;
  paused = false;

  /** @throws RangeError when keepRounds is not an integer >= 0. */
  constructor(
    private readonly store: RunStateStore,
    private readonly wake: () => void,
    opts: RunControlOptions = {},
  ) {
    const keep = opts.keepRounds ?? DEFAULT_KEEP_ROUNDS;
    if (!Number.isInteger(keep) || keep < 0) throw new RangeError(`keepRounds is ${keep}; expected an integer >= 0`);
    this.keepRounds = keep;
  }

  /** Holds the ledger of the round starting (or resuming) now and releases those past the retention. */
  remember(ledger: RoundLedger): void {
    const same = this.history.findIndex((l) => l.round === ledger.round);
    if (same >= 0) this.history.splice(same, 1);
    this.history.push(ledger);
    this.history.sort((a, b) => a.round - b.round);
    // The round in progress plus keepRounds finished ones.
    while (this.history.length > this.keepRounds + 1) this.history.shift();
    // Rounds before the first one this process saw (a resumed run) were never held here.
    this.releasedBelow = Math.max(this.releasedBelow, this.history[0]?.round ?? 0);
  }

  /** Rounds whose ledgers are held now, oldest first. */
  get heldRounds(): number[] {
    return this.history.map((l) => l.round);
  }

  pause(reason: string): void {
    this.paused = true;
    this.store.change('phase', (s) => {
      s.phase = RunPhase.PAUSED;
      s.message = reason ? `paused: ${reason}` : 'paused';
    });
  }

  resume(): void {
    this.paused = false;
    this.store.change('phase', (s) => {
      s.phase = RunPhase.RUNNING;
      s.message = '';
    });
    this.wake();
  }

  /** @throws ControlError ROUND_RELEASED for a round past the retention, ROUND_NOT_FOUND for one not started. */
  listGroups(round: number): ListGroupsResponse {
    const ledger = this.ledgerOf(round, `round ${round}`);
    return make(ListGroupsResponseSchema, {
      groups: [...ledger.groups.values()].map((g) =>
        make(GroupInfoSchema, {
          round: BigInt(g.round),
          group: g.group,
          taskId: g.task.id,
          rewards: g.rewards,
          advantages: g.advantages,
          fate: g.fate,
          trajectoryIds: g.samples.map((s) => s.acceptedId ?? s.trajectoryId),
          difficulty: g.task.difficulty,
        }),
      ),
    });
  }

  /**
   * The scored trajectory of `id`, or undefined when no held round has it.
   * @throws ControlError ROUND_RELEASED when the id belongs to a round past the retention.
   */
  getTrajectory(id: string): ScoredTrajectory | undefined {
    for (const ledger of this.history) {
      for (const g of ledger.groups.values()) for (const s of g.samples) if (s.scored?.trajectoryId === id) return s.scored;
    }
    let key;
    try {
      key = parseTrajectoryId(id);
    } catch {
      return undefined;
    }
    const round = key.round;
    if (key.runId === this.store.mutable.runId && round < this.releasedBelow) throw this.released(round, `trajectory ${JSON.stringify(id)} (round ${round})`);
    return undefined;
  }

  private ledgerOf(round: number, what: string): RoundLedger {
    const ledger = this.history.find((l) => l.round === round);
    if (ledger) return ledger;
    if (round < this.releasedBelow) throw this.released(round, what);
    const current = this.history[this.history.length - 1]?.round;
    throw new ControlError(
      ControlErrorCode.RoundNotFound,
      current === undefined ? `${what}: no round has started yet` : `${what} is not held by the learner: the latest round is ${current}`,
    );
  }

  private released(round: number, what: string): ControlError {
    const held = this.history.length > 0 ? `rounds ${this.history[0]?.round}–${this.history[this.history.length - 1]?.round} are held` : 'no round is held';
    return new ControlError(
      ControlErrorCode.RoundReleased,
      `${what} was released: the learner keeps the groups and trajectories of the last ${this.keepRounds} finished rounds (OWRL_KEEP_ROUNDS) and of none from before its last start; ${held}. Round ${round}'s summary is still in RunState.rounds and the checkpoint's rounds.jsonl`,
    );
  }
}
