// The learner's control surface behind gRPC: pause/resume and the read side (groups of recent
// rounds, a trajectory by id), over the ledgers of the last rounds.
import { make, GroupInfoSchema, ListGroupsResponseSchema, RunPhase, type ListGroupsResponse, type ScoredTrajectory } from '@owrl/proto';
import type { LearnerControl } from './grpc-server.js';
import type { RoundLedger } from './round-ledger.js';
import type { RunStateStore } from './run-state-store.js';

/** Rounds whose ledgers stay readable. */
const HISTORY = 20;

export class RunControl implements LearnerControl {
  private readonly history: RoundLedger[] = [];
  paused = false;

  constructor(
    private readonly store: RunStateStore,
    private readonly wake: () => void,
  ) {}

  remember(ledger: RoundLedger): void {
    this.history.push(ledger);
    if (this.history.length > HISTORY) this.history.shift();
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

  listGroups(round: number): ListGroupsResponse {
    const ledger = this.history.find((l) => l.round === round);
    const groups = ledger ? [...ledger.groups.values()] : [];
    return make(ListGroupsResponseSchema, {
      groups: groups.map((g) =>
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

  getTrajectory(id: string): ScoredTrajectory | undefined {
    for (const ledger of this.history) {
      for (const g of ledger.groups.values()) for (const s of g.samples) if (s.scored?.trajectoryId === id) return s.scored;
    }
    return undefined;
  }
}
