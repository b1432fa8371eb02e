// One scored result taken into the round in progress: deduplicated, judged by the failure rules,
// decided by the ledger, counted, then acked at once (a duplicate or late result) or held until
// the round's update is checkpointed; an excluded result's slot goes out again.
import { REASON_POLICY_BEHIND, type Logger } from '@owrl/core';
import type { LearnerConfig } from './config.js';
import type { CrashPoints } from './crash-point.js';
import type { Dispatcher, DispatchTarget } from './dispatcher.js';
import { FatalRunCode, FatalRunError } from './errors.js';
import { applyTimeoutRule, engineIncompatible } from './failure-rules.js';
import type { HostGuard } from './host-guard.js';
import type { Pending } from './inbox.js';
import type { LearnerState } from './learner-state.js';
import type { PendingUpdate } from './pending-update.js';
import { REASON_STALE } from './round-group.js';
import type { RoundSaver } from './round-saver.js';
import type { RunStateStore } from './run-state-store.js';
import type { TaskScheduler } from './scheduler.js';
import type { ScoredIntake } from './scored-intake.js';
import type { StalenessBook } from './staleness.js';

export interface TakeResultDeps {
  config: LearnerConfig;
  state: LearnerState;
  store: RunStateStore;
  intake: ScoredIntake;
  update: PendingUpdate;
  saver: RoundSaver;
  scheduler: TaskScheduler;
  stale: StalenessBook;
  hosts: HostGuard;
  dispatcher: Dispatcher;
  crash: CrashPoints;
}

/** The round a result is taken into. */
export interface RoundInProgress {
  to: DispatchTarget;
  log: Logger;
  async: boolean;
  /** The round's held deliveries (acked once its update is checkpointed). */
  held: Pending[];
}

/**
 * Takes one result into the round: a settled one is a duplicate; the failure rules first (a task
 * timeout blamed on the policy is trained at reward 0), then the ledger decides; a duplicate or
 * late result is acked at once, any other is held until the round's update is checkpointed. An
 * excluded result's slot is re-dispatched (unless its host is blacklisted).
 * @throws FatalRunError ENGINE_INCOMPATIBLE when the result says its engine cannot record traces.
 */
export async function takeResult(d: TakeResultDeps, r: RoundInProgress, ev: Pending): Promise<void> {
  const { config, state, store, intake, update } = d;
  const { ledger, stats } = r.to;
  const { log } = r;
  if (state.settled.has(ev.scored.trajectoryId)) {
    stats.ingested(ev.scored, { kind: 'duplicate' });
    await intake.ack([ev]);
    return;
  }
  const blamed = applyTimeoutRule(ev.scored, config.failureRules);
  // Staleness counts from the version the next update starts from (one more while an update trains).
  const res = ledger.ingest(ev.scored, r.async ? update.trainBase() - config.maxStaleness : 0);
  stats.ingested(ev.scored, res);
  if (blamed && res.kind !== 'duplicate' && res.kind !== 'late') stats.timeout(blamed);
  stats.observeLag(ev.scored);
  stats.inFlight(ledger.inFlight());
  const incompatible = engineIncompatible(ev.scored);
  if (incompatible) {
    // Nothing of the run could be trained: it ends here, the result counted and acked (a
    // restart after the engine is fixed re-dispatches its slot instead of failing on it again).
    log.error({ trajectory: ev.scored.trajectoryId }, incompatible);
    d.saver.save(ledger, stats);
    await intake.ack([ev]);
    throw new FatalRunError(FatalRunCode.EngineIncompatible, incompatible);
  }
  if (res.kind === 'duplicate' || res.kind === 'late') {
    log.debug({ trajectory: ev.scored.trajectoryId, kind: res.kind, ...(res.kind === 'late' ? { cause: res.cause } : {}), deliveries: ev.delivery.deliveryCount, seq: ev.delivery.seq }, 'result dropped');
    if (res.kind === 'late') d.saver.save(ledger, stats);
    await intake.ack([ev]);
    store.change('progress', () => {});
    return;
  }
  r.held.push(ev);
  if (res.kind === 'trainable' || res.kind === 'restored') {
    d.scheduler.record(res.group.task.id, ev.scored.verdict?.reward ?? 0);
  } else {
    if (res.reason === REASON_STALE) d.stale.dropped(1);
    else if (ev.scored.trajectory?.termination?.reason === REASON_POLICY_BEHIND) store.mutable.counters!.handedBack += 1n;
    else await d.hosts.observe(ev.scored);
    if (res.redispatch) await d.dispatcher.redispatchUnlessBlocked(r.to, res.group, res.redispatch, log);
  }
  stats.inFlight(ledger.inFlight());
  d.saver.saveSoon(ledger, stats);
  store.change('progress', () => {});
  if (ledger.inFlight() > 0) d.crash.hit('in_flight');
}
