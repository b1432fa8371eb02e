// One round of the learner, its steps in order (run()): open the round (new, resumed from its
// round file, or carried over from the last one in async mode) → dispatch its groups → take the
// results in, re-dispatching excluded rollouts, refilling by dynamic sampling (all-0/all-1 groups
// dropped, up to a cap) or, in async mode, topping up every free actor slot → end it: train →
// checkpoint → publish → ack; in async mode before the last round, write the update ahead →
// checkpoint it as pending → ack → train it off the loop's thread while the next round goes on.
//
// A round is never trained truncated: stopped past the grace, it is left for the next start (the
// previous round's pending update is committed first). A round timeout abandons what is still in
// flight.
import { toJson, RoundSummarySchema, type RoundSummary } from '@owrl/proto';
import type { Curriculum } from '@owrl/rl';
import type { Logger } from '@owrl/core';
import type { CheckpointBuilder } from './checkpoint-builder.js';
import type { RunControl } from './control.js';
import type { DispatchTarget } from './dispatcher.js';
import type { Inbox, Pending } from './inbox.js';
import type { LearnerMetrics } from './metrics.js';
import type { CarriedFigures } from './pending-update.js';
import type { PolicyPublisher } from './publisher.js';
import { reopenRound } from './resume.js';
import type { RoundFile } from './round-file.js';
import type { GroupState, Redispatch } from './round-group.js';
import { RoundLedger } from './round-ledger.js';
import { RoundStats } from './round-stats.js';
import { logRoundFinished, meanReward, summarizeRound } from './round-summary.js';
import { takeResult, type TakeResultDeps } from './take-result.js';
import { publishVersion, recordUpdate } from './update-record.js';

/** What a round works with: the run's settings and state, and the parts that act for it (those taking a result in, and these). */
export interface RoundDeps extends TakeResultDeps {
  incarnation: number;
  metrics: LearnerMetrics;
  logger: Logger;
  inbox: Inbox;
  publisher: PolicyPublisher;
  checkpoint: CheckpointBuilder;
  control: RunControl;
  curriculum: Curriculum;
}

/** Async mode: what a round hands to the next one at its update. */
export interface Carry {
  ledger: RoundLedger;
  /** Deliveries of results the carried groups hold (acked when their group is trained or dropped). */
  held: Pending[];
  /** Slots to publish again (their results went stale at the update). */
  redispatch: Redispatch[];
}

export interface RoundOutcome {
  ledger: RoundLedger;
  /** `interrupted`: stopped (or every host blocked until the stop); the round is left for the next start. */
  end: 'finished' | 'interrupted';
  carry: Carry | null;
}

/** What one turn of the collect loop came to: the round is complete, left, goes round again, or waits for a result. */
type Turn = 'complete' | 'left' | 'again' | 'wait';

export class Round {
  private readonly t0 = Date.now();
  private readonly async: boolean;
  private readonly lastRound: boolean;
  private readonly deadline: number;
  private readonly log: Logger;
  private readonly stats: RoundStats;
  private readonly maxSteps: number;
  /** The round's ledger, stats and step limit, as dispatches take them: set as the round opens (open()). */
  private to!: DispatchTarget;
  private dispatchedGroups = 0;
  /** Deliveries of the round's results, held unacked until the update that used them is checkpointed. */
  private readonly deliveries: Pending[] = [];
  /** Groups whose fate was noted, and how far into the ledger's decisions that went. */
  private readonly decided = new Set<number>();
  private noted = 0;

  constructor(
    private readonly d: RoundDeps,
    readonly round: number,
  ) {
    const { config } = d;
    this.async = config.mode === 'async';
    this.lastRound = round === config.rounds - 1;
    this.deadline = this.t0 + config.roundTimeoutMs;
    this.maxSteps = d.curriculum.maxStepsForRound(round);
    this.log = d.logger.child({ run: config.runId, round });
    this.stats = new RoundStats(d.store, d.metrics);
  }

  private get ledger(): RoundLedger {
    return this.to.ledger;
  }

  /**
   * The round's steps; resolves once it has finished or was left. `resumed`: the round as a crash
   * left it; `carry`: the groups the previous round carried over (async mode).
   */
  async run(resumed: RoundFile | null, carry: Carry | null): Promise<RoundOutcome> {
    await this.open(resumed, carry);
    if (!this.async && this.ledger.groups.size === 0) {
      this.dispatchedGroups = await this.d.dispatcher.groups(this.to, this.d.config.groupsPerRound);
      if (this.dispatchedGroups === 0) this.dispatchedGroups = await this.d.dispatcher.onceUnblocked(this.to, this.log);
      if (this.dispatchedGroups === 0) return this.leave(); // stopped while every host was blocked
    }
    if ((await this.collect()) === 'left') return this.leave();
    this.noteFates();
    // An update still training from the previous round is committed first: this round's update
    // starts from the version it makes.
    await this.d.update.commit(this.ledger, this.stats);
    const kept = this.ledger.byFate('kept');
    const summary = summarizeRound(this.ledger, this.round, this.maxSteps, this.stats, this.d.state.policyVersion);
    if (this.async && !this.lastRound && kept.length > 0) return this.overlapUpdate(kept, summary);
    return this.updateInOrder(kept, summary);
  }

  /**
   * Opens the round: a new ledger, the one a crash left (reopened: its missing slots dispatched
   * again), or the groups the previous round carried over (their stale slots dispatched again).
   */
  private async open(resumed: RoundFile | null, carry: Carry | null): Promise<void> {
    const { config, store, control, saver, dispatcher, incarnation } = this.d;
    store.change('round', (s) => {
      s.round = BigInt(this.round);
    });
    if (resumed) {
      const { ledger, missing } = reopenRound(resumed, incarnation, store, this.stats);
      this.to = { ledger, stats: this.stats, maxSteps: this.maxSteps };
      if (this.async) this.d.stale.publish();
      control.remember(ledger);
      this.dispatchedGroups = ledger.groups.size;
      saver.save(ledger, this.stats);
      this.log.info({ groups: ledger.groups.size, redispatch: missing.length, awaitingPayload: ledger.awaitingPayload(), inFlight: ledger.inFlight() }, 'round resumed');
      for (const m of missing) await dispatcher.redispatch(this.to, m);
    } else if (carry) {
      this.to = { ledger: carry.ledger, stats: this.stats, maxSteps: this.maxSteps };
      this.deliveries.push(...carry.held);
      control.remember(carry.ledger);
      saver.save(carry.ledger, this.stats);
      for (const m of carry.redispatch) await dispatcher.redispatch(this.to, m);
    } else {
      this.to = { ledger: new RoundLedger(config.runId, this.round, config.maxAttempts, incarnation), stats: this.stats, maxSteps: this.maxSteps };
      control.remember(this.ledger);
    }
  }

  /** Takes results in until the round is complete, or it is left (stopped). */
  private async collect(): Promise<'complete' | 'left'> {
    const { inbox, state, update, metrics } = this.d;
    for (;;) {
      if (update.ended) await update.commit(this.ledger, this.stats);
      this.noteFates();
      const turn = this.async ? await this.asyncTurn() : await this.syncTurn();
      if (turn === 'complete' || turn === 'left') return turn;
      if (turn === 'again') continue;
      this.d.saver.flush(this.ledger, this.stats);
      metrics.heldResults.set(inbox.heldCount);
      metrics.inboxQueued.set(inbox.pending);
      metrics.pendingGroups.set(this.ledger.pendingGroups());
      const ev = await inbox.next(Math.min(this.deadline, state.stopDeadline), () => state.stopDue || update.ended);
      if (!ev && update.ended && !state.stopDue && Date.now() < this.deadline) continue;
      if (ev) {
        await takeResult(this.d, { to: this.to, log: this.log, async: this.async, held: this.deliveries }, ev);
        continue;
      }
      if (state.stopping) {
        this.log.warn({ inFlight: this.ledger.inFlight() }, 'stopping: the round is left unfinished for the next start (not trained truncated)');
        return 'left';
      }
      const n = this.ledger.abandonInFlight();
      this.log.warn({ abandoned: n }, 'round timed out: rollouts still in flight are abandoned');
      this.stats.inFlight(0);
      this.d.saver.save(this.ledger, this.stats);
      if (this.async) {
        this.noteFates();
        return 'complete';
      }
    }
  }

  /**
   * Async mode: the round ends at its update — enough kept groups, or the dynamic-sampling cap
   * reached; the last round waits for every group still in flight, so the run ends with nothing
   * untrained. Meanwhile every free slot gets a request.
   */
  private async asyncTurn(): Promise<Turn> {
    const { config, state, update, dispatcher } = this.d;
    const kept = this.ledger.keptGroups();
    const enough = kept >= config.groupsPerRound || this.decided.size >= config.maxGroupsPerRound;
    // While the previous update still trains, the round goes on taking results in (never waiting
    // on the training) and keeping every slot busy up to its cap of decided groups; it ends once
    // that update is committed, with every group it kept (a larger batch when training is the
    // bottleneck).
    const training = !this.lastRound && update.pending;
    if (enough && !training && (!this.lastRound || this.ledger.pendingGroups() === 0)) return 'complete';
    if (!state.stopping && (!enough || (training && this.decided.size < config.maxGroupsPerRound))) {
      this.dispatchedGroups += await dispatcher.topUp(this.to, kept, this.lastRound);
    }
    if (this.ledger.pendingGroups() > 0) return 'wait';
    // Never trained truncated on a stop; otherwise every task host is blocked.
    if (state.stopping) return 'left';
    if (kept > 0) return 'complete';
    const n = await dispatcher.onceUnblocked(this.to, this.log);
    if (n === 0) return 'left';
    this.dispatchedGroups += n;
    return 'again';
  }

  /** Sync mode: once every result is in, dynamic sampling refills while too few groups carry signal, up to the cap. */
  private async syncTurn(): Promise<Turn> {
    const { config, state } = this.d;
    if (this.ledger.inFlight() > 0 || this.ledger.awaitingPayload() > 0) return 'wait';
    const missing = config.groupsPerRound - this.ledger.byFate('kept').length;
    if (missing > 0 && this.dispatchedGroups < config.maxGroupsPerRound && !state.stopping) {
      const added = await this.d.dispatcher.groups(this.to, Math.min(missing, config.maxGroupsPerRound - this.dispatchedGroups));
      this.dispatchedGroups += added;
      if (added > 0) return 'again';
      this.log.warn({ missing }, 'no refill: every task host is blacklisted');
    }
    return 'complete';
  }

  /** Counts the fate of each group the ledger decided since the last call, once (without a scan of every group per result). */
  private noteFates(): void {
    const fresh = this.ledger.decidedSince(this.noted);
    this.noted += fresh.length;
    for (const g of fresh) {
      if (this.decided.has(g.group)) continue;
      this.decided.add(g.group);
      this.stats.groupDecided(g, this.ledger.exhausted(g));
    }
  }

  /**
   * The round's update in order — train → checkpoint → publish → ack — with nothing of it left
   * pending (sync mode; async mode's last round, or a round that kept nothing). Async: the groups
   * still in flight go on into the next round, and what the new version leaves stale is
   * re-dispatched there.
   */
  private async updateInOrder(kept: GroupState[], summary: RoundSummary): Promise<RoundOutcome> {
    const { store, metrics, state, publisher } = this.d;
    if (kept.length > 0) {
      summary.stalenessCounts = this.d.stale.record(kept, state.policyVersion);
      const tu = Date.now();
      const u = await publisher.train(kept, state.policyVersion);
      recordUpdate(summary, u, publisher.takeOutcome(state.policyVersion + 1), (Date.now() - tu) / 1000, store.mutable.counters!, metrics);
      state.policyVersion += 1;
      store.mutable.counters!.updates += 1n;
    }
    this.d.crash.hit('after_update');
    const next = this.async && !this.lastRound && this.ledger.pendingGroups() > 0 ? this.carryOver(state.policyVersion) : null;
    summary.wallS = (Date.now() - this.t0) / 1000;
    metrics.successRate.set(summary.successRate);
    metrics.rewardMean.set(meanReward(this.ledger));
    store.change('update', (s) => {
      s.rounds.push(summary);
      s.policyVersion = BigInt(state.policyVersion);
      s.round = BigInt(this.round + 1);
    });
    const ackNow = this.splitDeliveries(next);
    this.d.checkpoint.save({ nextRound: this.round + 1, settledIds: this.settle(ackNow), carry: next?.ledger ?? null });
    if (kept.length > 0) await publishVersion(publisher, state.policyVersion, summary, metrics);
    metrics.policyVersion.set(state.policyVersion);
    // Lossless: the round's scored trajectories are acked only now that the update is checkpointed
    // (async: except those of groups still in flight, held until their group is decided).
    await this.d.intake.ack(ackNow);
    logRoundFinished(this.d.logger, this.d.config.runId, this.round, state.policyVersion, summary, this.async ? carriedFigures(next) : null);
    return { ledger: this.ledger, end: 'finished', carry: next };
  }

  /**
   * Async mode, a round with kept groups before the last: its update is written ahead (the
   * request stored, like a remote trainer's) and checkpointed as pending with the carried-over
   * groups, the round's results are acked, and the update trains off the loop's thread while the
   * next round dispatches and ingests (results count as stale against the version it makes). A
   * restart from that checkpoint trains the written-ahead request again from the checkpointed
   * weights (the same update).
   */
  private async overlapUpdate(kept: GroupState[], summary: RoundSummary): Promise<RoundOutcome> {
    const { state, publisher } = this.d;
    summary.stalenessCounts = this.d.stale.record(kept, state.policyVersion);
    const target = state.policyVersion + 1;
    await this.d.dispatcher.whileWorking(publisher.writeAhead(kept, state.policyVersion), this.to);
    const next = this.ledger.pendingGroups() > 0 ? this.carryOver(target) : null;
    summary.wallS = (Date.now() - this.t0) / 1000;
    this.d.metrics.rewardMean.set(meanReward(this.ledger));
    const ackNow = this.splitDeliveries(next);
    this.d.checkpoint.save({ nextRound: this.round + 1, settledIds: this.settle(ackNow), carry: next?.ledger ?? null, pendingUpdate: { round: this.round, target, summary: toJson(RoundSummarySchema, summary) } });
    await this.d.intake.ack(ackNow);
    this.d.update.start(this.round, target, summary, carriedFigures(next));
    return { ledger: this.ledger, end: 'finished', carry: next };
  }

  /** Leaving the round unfinished: the previous round's update (async) is committed first. */
  private async leave(): Promise<RoundOutcome> {
    await this.d.update.commit(this.ledger, this.stats);
    return { ledger: this.ledger, end: 'interrupted', carry: null };
  }

  /** Async: the groups still in flight, carried into the next round; what `version` leaves stale is re-dispatched. */
  private carryOver(version: number): Carry {
    const carried = this.ledger.carryOver(this.round + 1);
    const expired = carried.expireStale(version - this.d.config.maxStaleness);
    this.stats.expiredStale(expired.expired.length);
    this.d.stale.dropped(expired.expired.length);
    return { ledger: carried, held: [], redispatch: expired.redispatch };
  }

  /** The round's deliveries to ack now; those the carried groups hold go with them. */
  private splitDeliveries(next: Carry | null): Pending[] {
    if (!next) return this.deliveries;
    next.held = this.deliveries.filter((e) => next.ledger.holds(e.delivery.value.trajectoryId));
    return this.deliveries.filter((e) => !next.ledger.holds(e.delivery.value.trajectoryId));
  }

  /**
   * The round end settles the ids acked now and the ids the round dropped as late (acked already:
   * one whose ack a crash lost comes back as a duplicate, not as a second late drop); returns the
   * settled ids to checkpoint.
   */
  private settle(ackNow: readonly Pending[]): string[] {
    return this.d.state.settled.roundEnd([...ackNow.map((e) => e.delivery.value.trajectoryId), ...this.ledger.lateIds()]);
  }
}

function carriedFigures(next: Carry | null): CarriedFigures {
  return { carried: next?.ledger.pendingGroups() ?? 0, inFlight: next?.ledger.inFlight() ?? 0 };
}
