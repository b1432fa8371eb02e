// The learner's observable run state: a RunState message with a resource version that increases
// on every change, and listeners for WatchRun. RunState.rounds stays bounded (round-history.ts):
// after each change it is thinned once it holds more than its limits.
import { EventEmitter } from 'node:events';
import { clone, make, RunCountersSchema, RunPhase, RunStateSchema, type RunState } from '@owrl/proto';
import { roundHistoryLimits, thinRounds, type RoundHistoryOptions } from './round-history.js';

/** `fleet`: RunState.actors or RunState.blacklist changed (fleet-view.ts). */
export type ChangeKind = 'snapshot' | 'round' | 'update' | 'phase' | 'progress' | 'fleet';

export class RunStateStore {
  private state: RunState;
  private readonly events = new EventEmitter();
  private readonly limits: { recent: number; older: number };

  /** @throws RangeError on bad round-history limits. */
  constructor(runId: string, roundsTotal: number, mode: string, history: RoundHistoryOptions = {}) {
    this.limits = roundHistoryLimits(history);
    this.state = make(RunStateSchema, {
      runId,
      phase: RunPhase.STARTING,
      roundsTotal: BigInt(roundsTotal),
      counters: make(RunCountersSchema, {}),
      startedAtMs: BigInt(Date.now()),
      mode,
    });
    this.events.setMaxListeners(1000);
  }

  /** A copy of the current state. */
  get(): RunState {
    return clone(RunStateSchema, this.state);
  }

  /** Mutates the state, bumps the resource version and notifies watchers. */
  change(kind: ChangeKind, fn: (s: RunState) => void): void {
    fn(this.state);
    this.state.rounds = thinRounds(this.state.rounds, this.limits);
    this.state.resourceVersion += 1n;
    this.state.updatedAtMs = BigInt(Date.now());
    this.events.emit('change', kind);
  }

  /** Direct access for hot counters; call `change` afterwards to publish. */
  get mutable(): RunState {
    return this.state;
  }

  onChange(fn: (kind: ChangeKind) => void): () => void {
    this.events.on('change', fn);
    return () => this.events.off('change', fn);
  }
}
