// Rollout requests onto OWRL_TASKS: new groups (saved before they are published, one save per
// batch), re-dispatches of single slots, the wait while every task host is blacklisted, and in
// async mode the top-ups that keep every actor slot busy (sized by top-up.ts).
import { fnv1a, hostOf, REASON_HOST_BLACKLISTED, type SeededRng, type Logger } from '@owrl/core';
import { make, RolloutRequestSchema } from '@owrl/proto';
import { taskSubject, type Bus } from '@owrl/bus';
import type { AckBudget } from './ack-budget.js';
import type { LearnerConfig } from './config.js';
import type { CrashPoints } from './crash-point.js';
import { withRetry, type RetryOptions } from './failure-policy.js';
import type { HostGuard } from './host-guard.js';
import type { Inbox } from './inbox.js';
import type { LearnerState } from './learner-state.js';
import type { LearnerMetrics } from './metrics.js';
import type { GroupState, Redispatch } from './round-group.js';
import type { RoundLedger } from './round-ledger.js';
import type { RoundSaver } from './round-saver.js';
import type { RoundStats } from './round-stats.js';
import type { RunStateStore } from './run-state-store.js';
import type { TaskScheduler } from './scheduler.js';
import { heldFor, topUpWant, withinRoom } from './top-up.js';

/** How long a blacklist look-up is reused, and the poll interval while every task host is blocked. */
export const BLACKLIST_CACHE_MS = 5000;
/** Groups whose rollout requests are published at once. */
const DISPATCH_CONCURRENCY = 16;

export interface DispatcherDeps {
  config: LearnerConfig;
  bus: Bus;
  store: RunStateStore;
  scheduler: TaskScheduler;
  hosts: HostGuard;
  budget: AckBudget;
  saver: RoundSaver;
  inbox: Inbox;
  state: LearnerState;
  rng: SeededRng;
  crash: CrashPoints;
  retry: RetryOptions;
  metrics: LearnerMetrics;
  logger: Logger;
}

/** Where dispatches of a round go and what they count in: its ledger and stats, and its step limit. */
export interface DispatchTarget {
  ledger: RoundLedger;
  stats: RoundStats;
  maxSteps: number;
}

export class Dispatcher {
  constructor(private readonly d: DispatcherDeps) {}

  /**
   * Publishes one rollout request. `writtenAhead`: the dispatch was already counted and saved with
   * its batch (groups), so neither is done again here.
   */
  async request(t: DispatchTarget, g: GroupState, sample: number, attempt: number, id: string, redispatch: boolean, writtenAhead = false): Promise<void> {
    const { ledger, stats } = t;
    const version = BigInt(this.d.state.policyVersion);
    // The rollout's session (a bundled site keeps its state apart by it; the actor puts it in the start URL).
    const sessionId = `${fnv1a(id).toString(36)}${fnv1a(id, 0x9e3779b9).toString(36)}`;
    const req = make(RolloutRequestSchema, {
      runId: ledger.runId,
      round: BigInt(ledger.round),
      group: g.group,
      sample,
      attempt,
      trajectoryId: id,
      task: g.task,
      maxSteps: t.maxSteps,
      policyVersion: version,
      minPolicyVersion: version,
      sessionId,
      dispatchedAtMs: BigInt(Date.now()),
      temperature: this.d.config.temperature,
      seed: BigInt(Math.floor(this.d.rng.next() * 2 ** 32)),
    });
    await withRetry(`dispatch ${id}`, () => this.d.bus.publish(taskSubject(ledger.runId), RolloutRequestSchema, req, { msgId: id }), this.d.retry);
    if (writtenAhead) return;
    stats.dispatched(redispatch);
    stats.inFlight(ledger.inFlight());
    this.d.saver.save(ledger, stats);
  }

  /** A slot the ledger planned again (a restart's missing rollouts, a carried one gone stale). */
  async redispatch(t: DispatchTarget, m: Redispatch): Promise<void> {
    await this.request(t, m.group, m.sample, m.attempt, m.trajectoryId, true);
  }

  /**
   * The re-dispatch ingest() planned for `sample` of `g` (its result was excluded): published,
   * unless the task's host is blacklisted now, in which case the slot is abandoned instead.
   */
  async redispatchUnlessBlocked(t: DispatchTarget, g: GroupState, again: { sample: number; attempt: number }, log: Logger): Promise<void> {
    const host = hostOf(g.task.startUrl);
    if (await this.d.hosts.isBlocked(host)) {
      t.ledger.cancelRedispatch(g.group, again.sample);
      this.d.metrics.cancelled.inc({ reason: REASON_HOST_BLACKLISTED });
      log.info({ group: g.group, sample: again.sample, host }, 're-dispatch cancelled: the task host is blacklisted');
      return;
    }
    const id = t.ledger.id(g.group, again.sample, again.attempt);
    this.d.saver.save(t.ledger, t.stats);
    await this.request(t, g, again.sample, again.attempt, id, true);
  }

  /** Dispatches `count` new groups (fewer when hosts are blocked); returns how many. Timed: owrl_learner_dispatch_seconds (the loop takes no result in meanwhile). */
  async groups(t: DispatchTarget, count: number): Promise<number> {
    const t0 = performance.now();
    try {
      return await this.publishGroups(t, count);
    } finally {
      this.d.metrics.dispatchSeconds.observe((performance.now() - t0) / 1000);
    }
  }

  private async publishGroups(t: DispatchTarget, count: number): Promise<number> {
    const { ledger, stats } = t;
    const { groupSize } = this.d.config;
    const blocked = await this.d.hosts.blockedHosts().catch((e: unknown) => {
      this.d.logger.warn({ err: e }, 'reading the blacklist failed; scheduling without it');
      return new Set<string>();
    });
    const tasks = this.d.scheduler.pick(count, (h) => blocked.has(h));
    const first = ledger.nextGroup;
    // Write-ahead: the groups, their ids and their dispatch counts are saved before anything is
    // published, once for the batch (a save per rollout made dispatching a fleet's worth of
    // groups quadratic: every save writes the whole ledger). A crash mid-batch leaves requests
    // counted that never reached the bus; the restart re-dispatches their slots under new ids.
    for (const [i, task] of tasks.entries()) {
      ledger.addGroup(first + i, task, groupSize);
      for (let k = 0; k < groupSize; k++) stats.dispatched(false);
    }
    stats.inFlight(ledger.inFlight());
    this.d.saver.save(ledger, stats);
    // Published DISPATCH_CONCURRENCY groups at a time: one round trip per chunk, not per rollout.
    for (let i = 0; i < tasks.length; i += DISPATCH_CONCURRENCY) {
      const chunk: GroupState[] = [];
      for (let j = i; j < Math.min(tasks.length, i + DISPATCH_CONCURRENCY); j++) chunk.push(ledger.groups.get(first + j) as GroupState);
      await Promise.all(
        chunk.map(async (g) => {
          await Promise.all(g.samples.map((s) => this.request(t, g, s.sample, 0, s.trajectoryId, false, true)));
          this.d.crash.hit('dispatching');
        }),
      );
    }
    this.d.store.change('progress', () => {});
    return tasks.length;
  }

  /**
   * Every task host is blacklisted: says so in the run state and retries the round's dispatch every
   * few seconds until an entry expires or is removed (`owrl blacklist remove`), or the learner stops.
   * Returns the groups dispatched (0 when stopped).
   */
  async onceUnblocked(t: DispatchTarget, log: Logger): Promise<number> {
    const { state, store } = this.d;
    log.warn({}, 'every task host is blacklisted: waiting for an entry to expire or be removed');
    store.change('phase', (s) => {
      s.message = 'waiting: every task host is blacklisted';
    });
    let n = 0;
    while (n === 0 && !state.stopping) {
      await this.d.inbox.sleep(BLACKLIST_CACHE_MS);
      this.d.hosts.refresh();
      if (!state.stopping) n = await this.groups(t, this.d.config.groupsPerRound);
    }
    store.change('phase', (s) => {
      if (s.message === 'waiting: every task host is blacklisted') s.message = '';
    });
    return n;
  }

  /**
   * Async mode: dispatches groups until the rollouts in flight cover every actor slot plus one
   * group of queue, within the pending-group and held-result budgets (top-up.ts). In the last
   * round only what the round still needs. `finished`: rollouts in flight known to be finished
   * (results not yet taken in), whose slots are free. Returns the groups dispatched.
   */
  async topUp(t: DispatchTarget, kept: number, lastRound: boolean, finished = 0): Promise<number> {
    const { groupSize, groupsPerRound, maxGroupsPerRound, maxStaleness } = this.d.config;
    const pending = t.ledger.pendingGroups();
    const slots = lastRound ? 0 : this.d.store.mutable.actors.reduce((a, x) => a + x.slots, 0);
    if (!lastRound) this.d.budget.checkFleet(slots);
    const want = topUpWant({ lastRound, groupSize, groupsPerRound, maxGroupsPerRound, maxStaleness, kept, pending, inFlight: t.ledger.inFlight(), finished, slots });
    if (want <= 0) return 0;
    const room = await this.d.budget.roomForHeld(heldFor(want, pending, maxGroupsPerRound, groupSize));
    const n = withinRoom(want, room, pending, maxGroupsPerRound, groupSize);
    return n > 0 ? this.groups(t, n) : 0;
  }

  /**
   * Async mode: awaits `work` (the update's write-ahead), meanwhile dispatching for the slots that
   * free up. The loop takes no result in while the update is written ahead (its groups are being
   * carried), so without this every slot that finished in those seconds stood idle until it was
   * over (at 8000 slots on a loaded machine, 12–30 s once per update). The results that arrive
   * wait in the inbox, and the top-up counts them as finished. Only here: counted so at every
   * top-up, a backlog in the inbox (a saturated learner, the bus bench) made the learner dispatch
   * more the further it fell behind, and its rate fell from ≈ 380 to 70–190 trajectories a second.
   */
  async whileWorking<T>(work: Promise<T>, t: DispatchTarget): Promise<T> {
    const { inbox, state } = this.d;
    let done = false;
    // Observed at once: a failure is thrown by the await below, never reported as unhandled.
    const settle = () => {
      done = true;
      inbox.notify();
    };
    void work.then(settle, settle);
    while (!done && !state.stopping) {
      await inbox.sleep(1000);
      if (!done && !state.stopping) await this.topUp(t, 0, false, inbox.pending);
    }
    return await work;
  }
}
