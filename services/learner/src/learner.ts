// The learner's loop (sync mode): per round it schedules groups of rollouts, collects their scored
// trajectories, re-dispatches infrastructure failures, refills by dynamic sampling (all-0/all-1
// groups are dropped, up to a cap), then train → checkpoint → publish → ack.
//
// Restart-safe: the round ledger and the round's counts are saved on every change (round.json),
// the end-of-round checkpoint holds weights, optimizer, scheduler, RNG, host windows and the ids
// the round consumed. A restarted learner (a new incarnation, so new ids) re-dispatches what is
// missing, takes back the results held unacked before the crash (they return within ack_wait)
// and never trains on a result twice. A SIGTERM lets the round finish within a grace; otherwise
// the round is left for the next start, never trained truncated. Bus errors follow the failure
// policy (failure-policy.ts); a fatal one propagates out of run().
//
// Async mode (OWRL_MODE=async): dispatch keeps every actor slot busy; a round ends at an update,
// as soon as `groupsPerRound` kept groups are in, and the groups still in flight carry over into
// the next round's ledger (saved in the checkpoint) with their held deliveries. A result produced
// more than OWRL_MAX_STALENESS versions before the update is dropped as `stale` (counted) and its
// slot re-dispatched; the update's importance ratio uses the behaviour log-probs of the rollout.
//
// Modules: round-ledger.ts (ingestion bookkeeping, fates, advantages), round-stats.ts (one stats
// record per event), inbox.ts (held deliveries), publisher.ts (update + publish), control.ts
// (the control surface), checkpoint.ts.
import { fnv1a, hostOf, REASON_HOST_BLACKLISTED, REASON_POLICY_BEHIND, SeededRng } from '@owrl/core';
import {
  fromJson,
  make,
  toJson,
  RolloutRequestSchema,
  RoundSummarySchema,
  RunPhase,
  ScoredTrajectorySchema,
  decodeScoredLazy,
  type RoundSummary,
  type ScoredTrajectory,
  type Trajectory,
} from '@owrl/proto';
import { CONSUMER_ACTORS, ensureLearnerConsumer, STREAM_SCORED, STREAM_TASKS, taskSubject, type Bus, type Delivery, type WeightsPointer, type Blacklist } from '@owrl/bus';
import type { PointerModel } from '@owrl/policy';
import { Curriculum, type GrpoTrainer, type UpdateStats } from '@owrl/rl';
import type { Logger } from '@owrl/telemetry';
import type { ArtifactServer } from './artifact-server.js';
import { bigMapFromJson, bigMapToJson, countersFromJson, countersToJson, type CheckpointStore, type PendingUpdateJson, type RestoredCheckpoint } from './checkpoint.js';
import type { RoundFile } from './round-file.js';
import type { LearnerConfig } from './config.js';
import { RunControl } from './control.js';
import { CrashPoints } from './crash-point.js';
import { FatalRunCode, FatalRunError, STOPPED_FAILURE_CODE } from './errors.js';
import { withRetry, type RetryOptions } from './failure-policy.js';
import { applyTimeoutRule, engineIncompatible, failureRulesState } from './failure-rules.js';
import { HostGuard } from './host-guard.js';
import { Inbox, type Pending } from './inbox.js';
import type { LearnerMetrics } from './metrics.js';
import { PolicyPublisher, type PolicyPublisherDeps, type RemoteTrainerBinding, type UpdateOutcome } from './publisher.js';
import { REASON_STALE, type GroupState, type IngestResult, type Redispatch } from './round-group.js';
import { RoundLedger } from './round-ledger.js';
import { RoundStats } from './round-stats.js';
import { meanReward, summarizeRound } from './round-summary.js';
import { StalenessBook } from './staleness.js';
import { SettledIds } from './settled-ids.js';
import { recordUpdateHealth } from './update-health.js';
import type { RunStateStore } from './run-state-store.js';
import type { TaskScheduler } from './scheduler.js';

export interface LearnerDeps {
  config: LearnerConfig;
  bus: Bus;
  store: RunStateStore;
  scheduler: TaskScheduler;
  model: PointerModel;
  trainer: GrpoTrainer;
  /** A trainer in another process every update goes to (OWRL_TRAINER=host:port); absent: in process. */
  remoteTrainer?: RemoteTrainerBinding;
  artifacts: ArtifactServer;
  weights: WeightsPointer;
  blacklist: Blacklist;
  checkpoints: CheckpointStore;
  /** Folder of written-ahead in-process updates (async mode; kept across restarts). */
  updatesDir: string;
  /** Checkpoint the model and optimizer were restored from (OWRL_RESUME). */
  restored: RestoredCheckpoint | null;
  /** This start's count (bumped and persisted by the caller); part of every trajectory id. */
  incarnation: number;
  metrics: LearnerMetrics;
  logger: Logger;
  /** Where held results' steps wait until read (OWRL_HELD_STEPS: the stream or disk); absent: in memory. */
  heldSteps?: HeldSteps;
  /** Keeps the screenshots a remote update references until it is committed, served under imageUrl. */
  shots?: PolicyPublisherDeps['shots'];
}

/** Takes a held result's still-encoded steps out of memory until they are read (stream-steps.ts, step-spill.ts). */
export interface HeldSteps {
  /** `seq`: the OWRL_SCORED sequence the result was delivered from. Returns the bytes let go of. */
  hold(traj: Trajectory, seq: number): number;
}

/** How long a blacklist look-up is reused, and the poll interval while every task host is blocked. */
const BLACKLIST_CACHE_MS = 5000;
/** Longest time ingested results wait for their round save while more keep arriving. */
const ROUND_SAVE_MS = 500;
/** Groups whose rollout requests are published at once. */
const DISPATCH_CONCURRENCY = 16;
/** Async mode: groups in flight at most while no actor has been seen (see topUp). */
const UNSEEN_FLEET_GROUPS = 16;
/** Scored trajectories asked for per pull (consume's maxInFlight; the handler only queues them). */
const SCORED_PULL_BATCH = 500;

type RoundEnd = 'finished' | 'interrupted';

/** Async mode: what a round hands to the next one at its update. */
interface Carry {
  ledger: RoundLedger;
  /** Deliveries of results the carried groups hold (acked when their group is trained or dropped). */
  held: Pending[];
  /** Slots to publish again (their results went stale at the update). */
  redispatch: Redispatch[];
}

/**
 * Async mode: a finished round's update, training (off the loop's thread) while the next round
 * goes on. Its request is written ahead and checkpointed before it starts (the round's results
 * are acked then); it is committed (weights checkpointed, then published) once it has trained: at
 * the next round's first turn after that, or before that round's own update at the latest.
 */
interface PendingUpdate {
  round: number;
  /** The version it makes. */
  target: number;
  /** The round's summary, update health filled in at the commit. */
  summary: RoundSummary;
  training: Promise<UpdateStats>;
  trainStart: number;
  /** When it ended (trained or failed); null while it trains. */
  trainedAt: number | null;
  /** Round-finished log fields. */
  carried: { carried: number; inFlight: number } | null;
}

export class Learner {
  readonly control: RunControl;
  private readonly inbox: Inbox;
  private stopping = false;
  private stopDeadline = Infinity;
  private policyVersion = 0;
  private readonly curriculum: Curriculum;
  private readonly rng: SeededRng;
  private readonly hosts: HostGuard;
  private readonly publisher: PolicyPublisher;
  private readonly crash: CrashPoints;
  private readonly retry: RetryOptions;
  /** Ids the last two round ends settled (their acks may not have landed before a crash). */
  private settled = new SettledIds();
  /** Async mode: staleness of the trained trajectories over the run (the stale drops are counters.staleDropped). */
  private readonly stale: StalenessBook;
  private consumer: { stop(): Promise<void> } | null = null;
  private loop: Promise<void> | null = null;
  private draining: Promise<void> | null = null;
  /** The run's learner consumer and its max_ack_pending (raised as the results the learner may hold grow). */
  private scoredConsumer = '';
  private scoredMaxAckPending = 0;
  private scoredRaiseFailed = false;
  /** max_ack_pending of the actors consumer (0: unknown) and whether the fleet outgrowing it was logged. */
  private actorsMaxAckPending = 0;
  private ackPendingWarned = false;
  /** The round changed since its last save (saveRoundSoon). */
  private roundDirty = false;
  private roundSavedAt = 0;
  /** The ledger the round file holds (saved whole once, then journalled). */
  private roundFileLedger: RoundLedger | null = null;
  /** Async mode: the previous round's update, training while this round goes on. */
  private pendingUpdate: PendingUpdate | null = null;

  constructor(private readonly d: LearnerDeps) {
    this.curriculum = new Curriculum(d.config.curriculum);
    this.stale = new StalenessBook(d.store, d.metrics.staleness, d.config.maxStaleness);
    this.rng = new SeededRng(d.config.seed);
    this.inbox = new Inbox(Math.max(500, Math.floor(d.config.scoredAckWaitMs / 3)));
    this.control = new RunControl(d.store, () => this.inbox.notify(), { keepRounds: d.config.keepRounds });
    this.crash = new CrashPoints(d.config.crashAt);
    this.hosts = new HostGuard(
      d.blacklist,
      { threshold: d.config.blacklistFailures, windowMs: d.config.blacklistWindowMs, ttlMs: d.config.blacklistTtlMs, cacheMs: BLACKLIST_CACHE_MS },
      d.metrics,
      d.logger.child({ component: 'host-guard' }),
    );
    this.retry = {
      log: d.logger,
      stopped: () => this.stopping && Date.now() >= this.stopDeadline,
      onBackpressure: (active, what) =>
        d.store.change('phase', (s) => {
          if (active) s.message = `backpressure: ${what}: stream full, waiting for room`;
          else if (s.message.startsWith('backpressure:')) s.message = '';
        }),
    };
    this.publisher = new PolicyPublisher({
      runId: d.config.runId,
      model: d.model,
      trainer: d.trainer,
      artifacts: d.artifacts,
      weights: d.weights,
      crash: this.crash,
      logger: d.logger,
      retry: this.retry,
      updatesDir: d.updatesDir,
      ...(d.remoteTrainer ? { remote: d.remoteTrainer } : {}),
      ...(d.shots ? { shots: d.shots } : {}),
    });
  }

  /**
   * Ends the run: the round in progress may finish within the grace, else it is left for the next
   * start. Resolves once the loop has ended.
   */
  async stop(graceMs = this.d.config.stopGraceMs): Promise<void> {
    if (!this.stopping) {
      this.stopping = true;
      this.stopDeadline = Date.now() + graceMs;
      this.inbox.notify();
    }
    await this.loop?.catch(() => {});
    await this.draining;
    await this.publisher.close();
  }

  /**
   * Runs the training; resolves when it has ended (the consumer keeps counting and acking late
   * results until stop()); rejects with the fatal error that ended it (FatalRunError for bus failures).
   */
  async run(): Promise<void> {
    this.loop = this.runLoop();
    return this.loop;
  }

  private async runLoop(): Promise<void> {
    const { config, bus, store, logger } = this.d;
    const restored = this.d.restored;
    store.change('snapshot', (s) => {
      s.incarnation = this.d.incarnation;
      // who timeouts are blamed on and what a spent re-dispatch budget does
      s.failureRules = failureRulesState(config.failureRules);
    });
    if (restored) {
      this.policyVersion = restored.policyVersion;
      const loop = restored.loop;
      if (loop) {
        this.d.scheduler.restore(loop.scheduler);
        this.rng.state = loop.rng;
        this.hosts.restore(loop.hostWindows);
        this.settled = new SettledIds(loop.settledIds);
        if (loop.staleness) {
          this.stale.restore(loop.staleness.counts);
        }
      }
      store.change('snapshot', (s) => {
        s.counters = restored.counters;
        s.rounds = restored.rounds;
        s.round = BigInt(restored.nextRound);
        s.policyVersion = BigInt(restored.policyVersion);
        if (loop) {
          s.terminations = bigMapFromJson(loop.terminations);
          s.excluded = bigMapFromJson(loop.excluded);
        }
      });
      logger.info({ round: restored.nextRound, policyVersion: restored.policyVersion, incarnation: this.d.incarnation }, 'resumed from checkpoint');
    }
    await this.publisher.publish(this.policyVersion);
    const pu = restored?.loop?.pendingUpdate;
    if (pu) {
      // An update checkpointed as written ahead, not yet trained into these weights: trained again.
      logger.info({ round: pu.round, policyVersion: pu.target }, 'training the written-ahead update again');
      this.startPending(pu.round, pu.target, fromJson(RoundSummarySchema, pu.summary as never), null);
    }
    try {
      this.actorsMaxAckPending = (await bus.jsm.consumers.info(STREAM_TASKS, CONSUMER_ACTORS)).config.max_ack_pending ?? 0;
    } catch (e) {
      logger.warn({ err: e }, 'reading the actors consumer failed; its max_ack_pending is not checked against the fleet');
    }
    const consumer = await withRetry(
      'create the learner consumer',
      () => ensureLearnerConsumer(bus, config.runId, { ackWaitMs: config.scoredAckWaitMs, maxAckPending: config.scoredMaxAckPending, logger }),
      this.retry,
    );
    this.scoredConsumer = consumer;
    this.scoredMaxAckPending = config.scoredMaxAckPending;
    // Sync mode holds at most a round's groups; async mode raises it as its pending groups grow (topUp).
    await this.roomForHeld(config.maxGroupsPerRound * config.groupSize);
    this.inbox.start();
    this.consumer = await bus.consume({
      stream: STREAM_SCORED,
      consumer,
      schema: ScoredTrajectorySchema,
      // The steps and their policy traces (most of the bytes) stay encoded until read: ingestion
      // reads neither, the update batch takes each kept step's index and trace without decoding
      // them, and the in-process update thread decodes the traces itself.
      decode: decodeScoredLazy,
      // Bounds what one pull asks for: the server sends a pull's messages at once, and each waits
      // in the client's buffer for the loop to decode it with its ack_wait already running. At
      // 10 000 (≈ 600 MB of trajectories) a burst (a fleet's actors stopping and publishing what
      // they hold) outlasted the 60 s ack_wait and came back as redeliveries. What is taken goes
      // to the inbox, whose held deliveries get working() well within ack_wait.
      maxInFlight: SCORED_PULL_BATCH,
      autoAck: false,
      // An ack lost on the way brings the result back, and the learner drops it (settled ids, the
      // ledger's consumed ids); an unconfirmed ack was not sent again either: nothing to wait for.
      confirmAcks: false,
      workingIntervalMs: Math.max(500, Math.floor(config.scoredAckWaitMs / 3)),
      handler: (delivery) => {
        const ev = { scored: delivery.value, delivery };
        this.shedPayload(ev);
        this.inbox.push(ev);
      },
    });
    store.change('phase', (s) => {
      s.phase = RunPhase.RUNNING;
    });
    this.stale.publish();
    try {
      let last: RoundLedger | null = null;
      let end: RoundEnd = 'finished';
      let carry: Carry | null = null;
      const firstRound = restored?.nextRound ?? 0;
      for (let round = firstRound; round < config.rounds && !this.stopping; round++) {
        // A pause holds no update back: one still training is committed first.
        if (this.control.paused) await this.commitPending(carry?.ledger ?? null, null);
        await this.waitWhilePaused();
        if (this.stopping) break;
        // The round in progress at a crash (also before the first checkpoint) resumes from its
        // ledger; in async mode, else from the groups the checkpoint carried over.
        const resumed = config.resume && round === firstRound ? (this.d.checkpoints.loadRound(round) ?? this.carriedRound(restored)) : null;
        const r = await this.runRound(round, resumed, carry);
        last = r.ledger;
        end = r.end;
        carry = r.carry;
        if (end === 'interrupted') break;
      }
      await this.commitPending(carry?.ledger ?? null, null);
      const finished = !this.stopping && end === 'finished';
      store.change('phase', (s) => {
        s.phase = finished ? RunPhase.FINISHED : RunPhase.FAILED;
        if (!finished) {
          s.failureCode = STOPPED_FAILURE_CODE;
          s.message = 'stopped before the last round; resume with OWRL_RESUME=1';
        }
      });
      // Still serving: late results (rollouts abandoned or superseded) are counted and acked. Also
      // after a restart that found every round done (a crash while the last round's update was
      // published, before its results were acked): those results come back and must be acked,
      // or they stay unacked on the run's consumer for good.
      if (finished) {
        this.draining = this.drainLate(last)
          .catch((e: unknown) => logger.warn({ err: e }, 'counting late results failed'))
          .finally(() => this.closeConsumer());
        return;
      }
    } catch (e) {
      await this.closeConsumer();
      throw e;
    }
    await this.closeConsumer();
  }

  private async closeConsumer(): Promise<void> {
    this.inbox.stop();
    const c = this.consumer;
    this.consumer = null;
    await c?.stop();
  }

  private async waitWhilePaused(): Promise<void> {
    while (this.control.paused && !this.stopping) await this.inbox.sleep(1000);
  }

  /**
   * After the last round: acks and counts what still arrives, until stopped. `ledger`: the last
   * round's, or null when this start ran no round (everything then counts as another round's).
   */
  private async drainLate(ledger: RoundLedger | null): Promise<void> {
    const stats = new RoundStats(this.d.store, this.d.metrics);
    while (!this.stopping) {
      const ev = await this.inbox.next(Infinity, () => this.stopping);
      if (!ev) break;
      const res: IngestResult = this.settled.has(ev.scored.trajectoryId) ? { kind: 'duplicate' } : ledger ? ledger.ingest(ev.scored) : { kind: 'late', cause: 'other_round' };
      this.d.logger.debug({ trajectory: ev.scored.trajectoryId, kind: res.kind, deliveries: ev.delivery.deliveryCount, seq: ev.delivery.seq }, 'result after the last round dropped');
      stats.ingested(ev.scored, res.kind === 'duplicate' || res.kind === 'late' ? res : { kind: 'late', cause: 'other_round' });
      this.d.store.change('progress', () => {});
      await this.ack([ev]);
    }
  }

  /** Async mode: the round a checkpoint carried over, when round.json was not written for it yet. */
  private carriedRound(restored: RestoredCheckpoint | null): RoundFile | null {
    const loop = restored?.loop;
    if (!restored || !loop?.carry || loop.carry.round !== restored.nextRound) return null;
    return { ledger: loop.carry, counters: countersToJson(restored.counters), terminations: loop.terminations, excluded: loop.excluded, round: {} };
  }

  /**
   * Acks (plain acks: the consumer does not confirm them, see confirmAcks above) and releases the
   * deliveries from the inbox. A failure (the connection closed) keeps the failure policy.
   */
  private async ack(evs: { delivery: Delivery<ScoredTrajectory> }[]): Promise<void> {
    for (const ev of evs) {
      await withRetry('ack a scored trajectory', () => ev.delivery.ack(), this.retry);
      this.inbox.release(ev.delivery);
    }
  }

  /**
   * Called as a result arrives, before it waits in the inbox: its steps leave memory
   * (OWRL_HELD_STEPS: to disk, or left in the stream) and its delivery lets go of the bytes, so
   * what the learner keeps per result, while it waits and while it is held until its round's
   * update is checkpointed, is its decoded fields, not its payload. On arrival, not at ingestion:
   * a ~60 KB payload that waited in the inbox (the learner behind its fleet) was promoted to the
   * old generation, and their growth set off a full collection of everything the learner held
   * every ~2 s on the bus bench (docs/sizing.md, seventeenth session). A result then dropped (a
   * duplicate, late) has had its steps written for nothing; a spill segment is deleted once every
   * result in it is collected.
   */
  private shedPayload(ev: Pending): void {
    const held = this.d.heldSteps;
    if (!held) return;
    if (ev.scored.trajectory) held.hold(ev.scored.trajectory, ev.delivery.seq);
    ev.delivery.releaseData();
  }

  /**
   * Saves the round: whole when its ledger was not saved yet (a new, resumed or carried-over
   * round) or the journal has grown past the whole file, else only what changed since the last
   * save, appended to the journal (the whole ledger of a large fleet's pending groups is
   * megabytes; writing it after every dispatch batch and result made the learner's ingestion
   * O(pending groups) per trajectory: 60 % of its CPU at 2000 slots).
   */
  private saveRound(ledger: RoundLedger, stats: RoundStats): void {
    this.roundDirty = false;
    this.roundSavedAt = Date.now();
    const s = this.d.store.mutable;
    const common = { counters: countersToJson(s.counters!), terminations: bigMapToJson(s.terminations), excluded: bigMapToJson(s.excluded) };
    if (this.roundFileLedger !== ledger || this.d.checkpoints.roundSaveDue()) {
      ledger.markSaved();
      stats.markSaved();
      this.d.checkpoints.saveRound({ ledger: ledger.toJSON(), ...common, round: stats.toJSON() });
      this.roundFileLedger = ledger;
    } else {
      this.d.checkpoints.appendRound({ ledger: ledger.takeDelta(), ...common, round: stats.takeDelta() });
    }
  }

  /**
   * Saves the round soon after an ingest: at once when nothing else waits in the inbox, else at
   * most every ROUND_SAVE_MS. What a crash loses in between is safe: those results are still
   * unacked, come back, and are taken again (their slots were still in flight in the saved
   * ledger); re-dispatches and abandonments are still saved before they take effect.
   */
  private saveRoundSoon(ledger: RoundLedger, stats: RoundStats): void {
    this.roundDirty = true;
    if (this.inbox.pending === 0 || Date.now() - this.roundSavedAt >= ROUND_SAVE_MS) this.saveRound(ledger, stats);
  }

  /**
   * Publishes one rollout request. `writtenAhead`: the dispatch was already counted and saved with
   * its batch (dispatchGroups), so neither is done again here.
   */
  private async dispatch(ledger: RoundLedger, stats: RoundStats, g: GroupState, sample: number, attempt: number, maxSteps: number, id: string, redispatch: boolean, writtenAhead = false): Promise<void> {
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
      maxSteps,
      policyVersion: BigInt(this.policyVersion),
      minPolicyVersion: BigInt(this.policyVersion),
      sessionId,
      dispatchedAtMs: BigInt(Date.now()),
      temperature: this.d.config.temperature,
      seed: BigInt(Math.floor(this.rng.next() * 2 ** 32)),
    });
    await withRetry(`dispatch ${id}`, () => this.d.bus.publish(taskSubject(ledger.runId), RolloutRequestSchema, req, { msgId: id }), this.retry);
    if (writtenAhead) return;
    stats.dispatched(redispatch);
    stats.inFlight(ledger.inFlight());
    this.saveRound(ledger, stats);
  }

  /** publishGroups, timed (owrl_learner_dispatch_seconds: the loop takes no result in meanwhile). */
  private async dispatchGroups(ledger: RoundLedger, stats: RoundStats, count: number, maxSteps: number): Promise<number> {
    const t0 = performance.now();
    try {
      return await this.publishGroups(ledger, stats, count, maxSteps);
    } finally {
      this.d.metrics.dispatchSeconds.observe((performance.now() - t0) / 1000);
    }
  }

  private async publishGroups(ledger: RoundLedger, stats: RoundStats, count: number, maxSteps: number): Promise<number> {
    const blocked = await this.hosts.blockedHosts().catch((e: unknown) => {
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
      ledger.addGroup(first + i, task, this.d.config.groupSize);
      for (let k = 0; k < this.d.config.groupSize; k++) stats.dispatched(false);
    }
    stats.inFlight(ledger.inFlight());
    this.saveRound(ledger, stats);
    // Published DISPATCH_CONCURRENCY groups at a time: one round trip per chunk, not per rollout.
    for (let i = 0; i < tasks.length; i += DISPATCH_CONCURRENCY) {
      const chunk: GroupState[] = [];
      for (let j = i; j < Math.min(tasks.length, i + DISPATCH_CONCURRENCY); j++) chunk.push(ledger.groups.get(first + j) as GroupState);
      await Promise.all(
        chunk.map(async (g) => {
          await Promise.all(g.samples.map((s) => this.dispatch(ledger, stats, g, s.sample, 0, maxSteps, s.trajectoryId, false, true)));
          this.crash.hit('dispatching');
        }),
      );
    }
    this.d.store.change('progress', () => {});
    return tasks.length;
  }

  private async runRound(round: number, resumed: RoundFile | null, carry: Carry | null): Promise<{ ledger: RoundLedger; end: RoundEnd; carry: Carry | null }> {
    const { config, store, logger } = this.d;
    const async = config.mode === 'async';
    const t0 = Date.now();
    const maxSteps = this.curriculum.maxStepsForRound(round);
    const log = logger.child({ run: config.runId, round });
    const stats = new RoundStats(store, this.d.metrics);
    let ledger: RoundLedger;
    let dispatchedGroups = 0;
    const deliveries: Pending[] = [];
    // Leaving the round unfinished: the previous round's update (async) is committed first.
    const leave = async (): Promise<{ ledger: RoundLedger; end: RoundEnd; carry: Carry | null }> => {
      await this.commitPending(ledger, stats);
      return { ledger, end: 'interrupted', carry: null };
    };
    store.change('round', (s) => {
      s.round = BigInt(round);
    });
    if (resumed) {
      ledger = RoundLedger.restore(resumed.ledger, this.d.incarnation);
      store.change('snapshot', (s) => {
        s.counters = countersFromJson(resumed.counters);
        s.terminations = bigMapFromJson(resumed.terminations);
        s.excluded = bigMapFromJson(resumed.excluded);
      });
      if (async) this.stale.publish();
      stats.restore(resumed.round ?? {});
      this.control.remember(ledger);
      dispatchedGroups = ledger.groups.size;
      const missing = ledger.redispatchMissing();
      this.saveRound(ledger, stats);
      log.info({ groups: ledger.groups.size, redispatch: missing.length, awaitingPayload: ledger.awaitingPayload(), inFlight: ledger.inFlight() }, 'round resumed');
      for (const m of missing) await this.dispatch(ledger, stats, m.group, m.sample, m.attempt, maxSteps, m.trajectoryId, true);
    } else if (carry) {
      ledger = carry.ledger;
      deliveries.push(...carry.held);
      this.control.remember(ledger);
      this.saveRound(ledger, stats);
      for (const m of carry.redispatch) await this.dispatch(ledger, stats, m.group, m.sample, m.attempt, maxSteps, m.trajectoryId, true);
    } else {
      ledger = new RoundLedger(config.runId, round, config.maxAttempts, this.d.incarnation);
      this.control.remember(ledger);
    }
    if (!async && ledger.groups.size === 0) {
      dispatchedGroups = await this.dispatchGroups(ledger, stats, config.groupsPerRound, maxSteps);
      if (dispatchedGroups === 0) dispatchedGroups = await this.dispatchOnceUnblocked(ledger, stats, maxSteps, log);
      if (dispatchedGroups === 0) return leave(); // stopped while every host was blocked
    }
    const deadline = t0 + config.roundTimeoutMs;
    const decided = new Set<number>();
    // The ledger lists its decisions in order: each is noted once, without a scan of every group per result.
    let noted = 0;
    const noteFates = () => {
      const fresh = ledger.decidedSince(noted);
      noted += fresh.length;
      for (const g of fresh) {
        if (!decided.has(g.group)) {
          decided.add(g.group);
          stats.groupDecided(g, ledger.exhausted(g));
        }
      }
    };
    const lastRound = round === config.rounds - 1;

    for (;;) {
      if (this.pendingUpdate?.trainedAt != null) await this.commitPending(ledger, stats);
      noteFates();
      if (async) {
        // The round ends at its update: enough kept groups, or the dynamic-sampling cap reached.
        // The last round waits for every group still in flight, so the run ends with nothing untrained.
        const kept = ledger.keptGroups();
        const enough = kept >= config.groupsPerRound || decided.size >= config.maxGroupsPerRound;
        // While the previous update still trains, the round goes on taking results in (never
        // waiting on the training) and keeping every slot busy up to its cap of decided groups; it
        // ends once that update is committed, with every group it kept (a larger batch when
        // training is the bottleneck).
        const training = !lastRound && this.pendingUpdate !== null;
        if (enough && !training && (!lastRound || ledger.pendingGroups() === 0)) break;
        if (!this.stopping && (!enough || (training && decided.size < config.maxGroupsPerRound))) {
          const added = await this.topUp(ledger, stats, maxSteps, kept, lastRound);
          dispatchedGroups += added;
        }
        if (ledger.pendingGroups() === 0) {
          // Never trained truncated on a stop; otherwise every task host is blocked.
          if (this.stopping) return leave();
          if (kept > 0) break;
          const n = await this.dispatchOnceUnblocked(ledger, stats, maxSteps, log);
          if (n === 0) return leave();
          dispatchedGroups += n;
          continue;
        }
      } else if (ledger.inFlight() === 0 && ledger.awaitingPayload() === 0) {
        // Dynamic sampling: refill when too few groups carry signal, up to the cap.
        const kept = ledger.byFate('kept').length;
        const missing = config.groupsPerRound - kept;
        if (missing > 0 && dispatchedGroups < config.maxGroupsPerRound && !this.stopping) {
          const n = Math.min(missing, config.maxGroupsPerRound - dispatchedGroups);
          const added = await this.dispatchGroups(ledger, stats, n, maxSteps);
          dispatchedGroups += added;
          if (added > 0) continue;
          log.warn({ missing }, 'no refill: every task host is blacklisted');
        }
        break;
      }
      // Nothing left to take in: what saveRoundSoon() deferred is saved before waiting.
      if (this.roundDirty && this.inbox.pending === 0) this.saveRound(ledger, stats);
      this.d.metrics.heldResults.set(this.inbox.heldCount);
      this.d.metrics.inboxQueued.set(this.inbox.pending);
      this.d.metrics.pendingGroups.set(ledger.pendingGroups());
      const ev = await this.inbox.next(Math.min(deadline, this.stopDeadline), () => (this.stopping && Date.now() >= this.stopDeadline) || this.pendingUpdate?.trainedAt != null);
      if (!ev && this.pendingUpdate?.trainedAt != null && !(this.stopping && Date.now() >= this.stopDeadline) && Date.now() < deadline) continue;
      if (!ev) {
        if (this.stopping) {
          log.warn({ inFlight: ledger.inFlight() }, 'stopping: the round is left unfinished for the next start (not trained truncated)');
          return leave();
        }
        const n = ledger.abandonInFlight();
        log.warn({ abandoned: n }, 'round timed out: rollouts still in flight are abandoned');
        stats.inFlight(0);
        this.saveRound(ledger, stats);
        if (async) {
          noteFates();
          break;
        }
        continue;
      }
      if (this.settled.has(ev.scored.trajectoryId)) {
        stats.ingested(ev.scored, { kind: 'duplicate' });
        await this.ack([ev]);
        continue;
      }
      // The failure rules first: a task timeout blamed on the policy is trained at reward 0.
      const blamed = applyTimeoutRule(ev.scored, config.failureRules);
      // Staleness counts from the version the next update starts from (one more while an update trains).
      const res = ledger.ingest(ev.scored, async ? this.trainBase() - config.maxStaleness : 0);
      stats.ingested(ev.scored, res);
      if (blamed && res.kind !== 'duplicate' && res.kind !== 'late') stats.timeout(blamed);
      this.observeLag(ev.scored);
      stats.inFlight(ledger.inFlight());
      const incompatible = engineIncompatible(ev.scored);
      if (incompatible) {
        // Nothing of the run could be trained: it ends here, the result counted and acked (a
        // restart after the engine is fixed re-dispatches its slot instead of failing on it again).
        log.error({ trajectory: ev.scored.trajectoryId }, incompatible);
        this.saveRound(ledger, stats);
        await this.ack([ev]);
        throw new FatalRunError(FatalRunCode.EngineIncompatible, incompatible);
      }
      if (res.kind === 'duplicate' || res.kind === 'late') {
        log.debug({ trajectory: ev.scored.trajectoryId, kind: res.kind, ...(res.kind === 'late' ? { cause: res.cause } : {}), deliveries: ev.delivery.deliveryCount, seq: ev.delivery.seq }, 'result dropped');
        if (res.kind === 'late') this.saveRound(ledger, stats);
        await this.ack([ev]);
        store.change('progress', () => {});
        continue;
      }
      deliveries.push(ev);
      if (res.kind === 'trainable' || res.kind === 'restored') {
        this.d.scheduler.record(res.group.task.id, ev.scored.verdict?.reward ?? 0);
      } else {
        if (res.reason === REASON_STALE) this.stale.dropped(1);
        else if (ev.scored.trajectory?.termination?.reason === REASON_POLICY_BEHIND) store.mutable.counters!.handedBack += 1n;
        else await this.hosts.observe(ev.scored);
        if (res.redispatch) {
          const host = hostOf(res.group.task.startUrl);
          if (await this.hosts.isBlocked(host)) {
            ledger.cancelRedispatch(res.group.group, res.redispatch.sample);
            this.d.metrics.cancelled.inc({ reason: REASON_HOST_BLACKLISTED });
            log.info({ group: res.group.group, sample: res.redispatch.sample, host }, 're-dispatch cancelled: the task host is blacklisted');
          } else {
            const id = ledger.id(res.group.group, res.redispatch.sample, res.redispatch.attempt);
            this.saveRound(ledger, stats);
            await this.dispatch(ledger, stats, res.group, res.redispatch.sample, res.redispatch.attempt, maxSteps, id, true);
          }
        }
      }
      stats.inFlight(ledger.inFlight());
      this.saveRoundSoon(ledger, stats);
      store.change('progress', () => {});
      if (ledger.inFlight() > 0) this.crash.hit('in_flight');
    }
    noteFates();

    // An update still training from the previous round is committed first: this round's update
    // starts from the version it makes.
    await this.commitPending(ledger, stats);
    const kept = ledger.byFate('kept');
    const summary = summarizeRound(ledger, round, maxSteps, stats, this.policyVersion);
    if (async && !lastRound && kept.length > 0) return this.overlapUpdate(round, t0, ledger, stats, kept, summary, deliveries);

    // Train → checkpoint → publish → ack.
    if (kept.length > 0) {
      summary.stalenessCounts = this.stale.record(kept, this.policyVersion);
      const tu = Date.now();
      const u = await this.publisher.train(kept, this.policyVersion);
      this.noteOutcome(summary, this.publisher.takeOutcome(this.policyVersion + 1));
      recordUpdateHealth(summary, u.epochs, this.d.metrics);
      summary.updateS = (Date.now() - tu) / 1000;
      this.d.metrics.updateSeconds.observe(summary.updateS);
      this.policyVersion += 1;
      store.mutable.counters!.updates += 1n;
    }
    this.crash.hit('after_update');
    // Async: the groups still in flight go on into the next round; what went stale is re-dispatched.
    let next: Carry | null = null;
    if (async && !lastRound && ledger.pendingGroups() > 0) next = this.carry(ledger, stats, round, this.policyVersion);
    summary.wallS = (Date.now() - t0) / 1000;
    this.d.metrics.successRate.set(summary.successRate);
    this.d.metrics.rewardMean.set(meanReward(ledger));
    store.change('update', (s) => {
      s.rounds.push(summary);
      s.policyVersion = BigInt(this.policyVersion);
      s.round = BigInt(round + 1);
    });
    const ackNow = this.splitDeliveries(deliveries, next);
    this.checkpoint(round + 1, this.settleRound(ackNow, ledger), next?.ledger ?? null);
    if (kept.length > 0) await this.publishVersion(summary);
    this.d.metrics.policyVersion.set(this.policyVersion);
    // Lossless: the round's scored trajectories are acked only now that the update is checkpointed
    // (async: except those of groups still in flight, held until their group is decided).
    await this.ack(ackNow);
    this.logRound(round, summary, async ? { carried: next?.ledger.pendingGroups() ?? 0, inFlight: next?.ledger.inFlight() ?? 0 } : null);
    return { ledger, end: 'finished', carry: next };
  }

  /**
   * Async mode, a round with kept groups before the last: its update is written ahead (the
   * request stored, like a remote trainer's) and checkpointed as pending with the carried-over
   * groups, the round's results are acked, and the update trains off the loop's thread while the
   * next round dispatches and ingests (results count as stale against the version it makes). A
   * restart from that checkpoint trains the written-ahead request again from the checkpointed
   * weights (the same update).
   */
  private async overlapUpdate(
    round: number,
    t0: number,
    ledger: RoundLedger,
    stats: RoundStats,
    kept: GroupState[],
    summary: RoundSummary,
    deliveries: Pending[],
  ): Promise<{ ledger: RoundLedger; end: RoundEnd; carry: Carry | null }> {
    summary.stalenessCounts = this.stale.record(kept, this.policyVersion);
    const target = this.policyVersion + 1;
    await this.dispatchWhile(this.publisher.writeAhead(kept, this.policyVersion), ledger, stats, this.curriculum.maxStepsForRound(round));
    const next = ledger.pendingGroups() > 0 ? this.carry(ledger, stats, round, target) : null;
    summary.wallS = (Date.now() - t0) / 1000;
    this.d.metrics.rewardMean.set(meanReward(ledger));
    const ackNow = this.splitDeliveries(deliveries, next);
    this.checkpoint(round + 1, this.settleRound(ackNow, ledger), next?.ledger ?? null, { round, target, summary: toJson(RoundSummarySchema, summary) });
    await this.ack(ackNow);
    this.startPending(round, target, summary, { carried: next?.ledger.pendingGroups() ?? 0, inFlight: next?.ledger.inFlight() ?? 0 });
    return { ledger, end: 'finished', carry: next };
  }

  /**
   * Async mode: awaits `work` (the update's write-ahead), meanwhile dispatching for the slots that
   * free up. The loop takes no result in while the update is written ahead (its groups are being
   * carried), so without this every slot that finished in those seconds stood idle until it was
   * over (at 8000 slots on a loaded machine, 12–30 s once per update). The results that arrive
   * wait in the inbox, and topUp counts them as finished. Only here: counted so at every top-up, a
   * backlog in the inbox (a saturated learner, the bus bench) made the learner dispatch more the
   * further it fell behind, and its rate fell from ≈ 380 to 70–190 trajectories a second.
   */
  private async dispatchWhile<T>(work: Promise<T>, ledger: RoundLedger, stats: RoundStats, maxSteps: number): Promise<T> {
    let done = false;
    // Observed at once: a failure is thrown by the await below, never reported as unhandled.
    const settle = () => {
      done = true;
      this.inbox.notify();
    };
    void work.then(settle, settle);
    while (!done && !this.stopping) {
      await this.inbox.sleep(1000);
      if (!done && !this.stopping) await this.topUp(ledger, stats, maxSteps, 0, false, this.inbox.pending);
    }
    return await work;
  }

  /** Async: the groups still in flight, carried into the next round; what `version` leaves stale is re-dispatched. */
  private carry(ledger: RoundLedger, stats: RoundStats, round: number, version: number): Carry {
    const carried = ledger.carryOver(round + 1);
    const expired = carried.expireStale(version - this.d.config.maxStaleness);
    stats.expiredStale(expired.expired.length);
    this.stale.dropped(expired.expired.length);
    return { ledger: carried, held: [], redispatch: expired.redispatch };
  }

  /** The round's deliveries to ack now; those the carried groups hold go with them. */
  private splitDeliveries(deliveries: Pending[], next: Carry | null): Pending[] {
    if (next) next.held = deliveries.filter((e) => next.ledger.holds(e.delivery.value.trajectoryId));
    return next ? deliveries.filter((e) => !next.ledger.holds(e.delivery.value.trajectoryId)) : deliveries;
  }

  /**
   * The round end settles the ids acked now and the ids the round dropped as late (acked already:
   * one whose ack a crash lost comes back as a duplicate, not as a second late drop); returns the
   * settled ids to checkpoint.
   */
  private settleRound(ackNow: readonly Pending[], ledger: RoundLedger): string[] {
    return this.settled.roundEnd([...ackNow.map((e) => e.delivery.value.trajectoryId), ...ledger.lateIds()]);
  }

  private checkpoint(nextRound: number, settledIds: string[], carry: RoundLedger | null, pendingUpdate?: PendingUpdateJson): void {
    const s = this.d.store.mutable;
    this.d.checkpoints.save({
      nextRound,
      policyVersion: this.policyVersion,
      model: this.d.model,
      optimizer: this.d.trainer.optimizer,
      counters: s.counters!,
      rounds: s.rounds,
      loop: {
        scheduler: this.d.scheduler.snapshot(),
        rng: this.rng.state,
        hostWindows: this.hosts.snapshot(),
        curriculumStage: this.curriculum.stageForRound(nextRound),
        settledIds,
        terminations: bigMapToJson(s.terminations),
        excluded: bigMapToJson(s.excluded),
        ...(carry ? { carry: carry.toJSON() } : {}),
        staleness: { counts: this.stale.counts(), dropped: Number(s.counters!.staleDropped) },
        ...(pendingUpdate ? { pendingUpdate } : {}),
      },
    });
  }

  private async publishVersion(summary: RoundSummary): Promise<void> {
    const tp = Date.now();
    await this.publisher.publish(this.policyVersion);
    summary.publishS = (Date.now() - tp) / 1000;
    this.d.metrics.weightSyncSeconds.observe(summary.publishS);
  }

  private logRound(round: number, summary: RoundSummary, carried: { carried: number; inFlight: number } | null): void {
    this.d.logger.info(
      {
        run: this.d.config.runId,
        round,
        policyVersion: this.policyVersion,
        successRate: Number(summary.successRate.toFixed(3)),
        episodes: summary.episodes,
        kept: summary.groupsKept,
        droppedAllZero: summary.groupsDroppedAllZero,
        droppedAllOne: summary.groupsDroppedAllOne,
        loss: summary.loss,
        wallS: summary.wallS,
        updateS: summary.updateS,
        ...(carried ?? {}),
      },
      'round finished',
    );
  }

  /** What became of an update's samples besides training, in its round's summary and the run counters. */
  private noteOutcome(summary: RoundSummary, o: UpdateOutcome): void {
    summary.samplesNotSent = o.samplesNotSent;
    summary.imagesMissing = o.imagesMissing;
    summary.samplesRefused = o.samplesRefused;
    const c = this.d.store.mutable.counters!;
    c.samplesNotSent += BigInt(o.samplesNotSent);
    c.samplesRefused += BigInt(o.samplesRefused);
  }

  /** Starts training the written-ahead update to `target` off the loop's thread. */
  private startPending(round: number, target: number, summary: RoundSummary, carried: PendingUpdate['carried']): void {
    const p: PendingUpdate = { round, target, summary, training: this.publisher.trainAhead(target), trainStart: Date.now(), trainedAt: null, carried };
    const ended = () => {
      p.trainedAt = Date.now();
      this.inbox.notify();
    };
    p.training.then(ended, ended);
    this.pendingUpdate = p;
  }

  /** Version the next update starts from: one past the policy's while an update trains. */
  private trainBase(): number {
    return this.pendingUpdate?.target ?? this.policyVersion;
  }

  /**
   * Commits the pending update, waiting for it to train: the version moves on, the round's
   * summary is recorded, the trained weights are checkpointed, then published. `current` is the
   * round in progress, whose ledger the checkpoint carries (saved first with `currentStats`, so
   * its round file agrees), or the carried-over groups of a round not started yet.
   * @throws the update's error (the trainer failed).
   */
  private async commitPending(current: RoundLedger | null, currentStats: RoundStats | null): Promise<void> {
    const p = this.pendingUpdate;
    if (!p) return;
    this.pendingUpdate = null;
    const { store, metrics } = this.d;
    const { summary } = p;
    const u = await p.training;
    this.noteOutcome(summary, this.publisher.takeOutcome(p.target));
    recordUpdateHealth(summary, u.epochs, metrics);
    summary.updateS = ((p.trainedAt ?? Date.now()) - p.trainStart) / 1000;
    metrics.updateSeconds.observe(summary.updateS);
    this.policyVersion = p.target;
    store.mutable.counters!.updates += 1n;
    this.crash.hit('after_update');
    metrics.successRate.set(summary.successRate);
    store.change('update', (s) => {
      s.rounds.push(summary);
      s.policyVersion = BigInt(this.policyVersion);
    });
    // The round in progress is saved to round.json (whole or as a journal line) just before, and a
    // resume prefers round.json of the checkpoint's next round to the checkpoint's carry: carrying
    // the ledger again would serialize thousands of pending groups a second time per round (at
    // 8000 slots about a second of the loop on a loaded machine). Without its stats the ledger is
    // not saved here, so the checkpoint carries it.
    const saved = current !== null && currentStats !== null;
    if (saved) this.saveRound(current, currentStats);
    this.checkpoint(p.round + 1, this.settled.toJSON(), saved ? null : current);
    this.publisher.settleAhead(p.target);
    await this.publishVersion(summary);
    metrics.policyVersion.set(this.policyVersion);
    this.logRound(p.round, summary, p.carried);
  }

  /**
   * Async mode: dispatches groups until the rollouts in flight cover every actor slot plus one
   * group of queue (at least a round's worth, up to four a slot), within a budget of pending groups (the staleness
   * bound's, or three times the slots' worth when that is more). In the last round only what the
   * round still needs. `finished`: rollouts in flight known to be finished (results not yet taken
   * in), whose slots are free. Returns the groups dispatched.
   */
  private async topUp(ledger: RoundLedger, stats: RoundStats, maxSteps: number, kept: number, lastRound: boolean, finished = 0): Promise<number> {
    const { groupSize, groupsPerRound, maxGroupsPerRound, maxStaleness } = this.d.config;
    const pending = ledger.pendingGroups();
    let want: number;
    if (lastRound) {
      want = groupsPerRound - kept - pending;
    } else {
      const slots = this.d.store.mutable.actors.reduce((a, x) => a + x.slots, 0);
      if (!this.ackPendingWarned && this.actorsMaxAckPending > 0 && slots > this.actorsMaxAckPending) {
        // JetStream hands out no more requests than max_ack_pending: the slots beyond it stand idle.
        this.ackPendingWarned = true;
        this.d.logger.warn(
          { slots, maxAckPending: this.actorsMaxAckPending },
          'the fleet has more browser slots than the actors consumer max_ack_pending; the rest stay idle: raise OWRL_ACTORS_MAX_ACK_PENDING on every service',
        );
      }
      // A round's worth in flight, but never more than four requests a slot: past that a queue
      // only waits (until 2026-12-01 a round of 10 000 groups on 256 slots went out whole, 50 000
      // requests, and the loop dispatched for longer than the bus bench's window while results
      // waited untaken). Before any actor is seen (the run's start) a round's worth up to
      // UNSEEN_FLEET_GROUPS; the first results bring the fleet's slots and the rest.
      const roundWorth = groupsPerRound * groupSize;
      const target = Math.max(slots + groupSize, Math.min(roundWorth, slots > 0 ? 4 * slots : UNSEEN_FLEET_GROUPS * groupSize));
      // A group stays pending until its slowest rollout is back; with long-tailed episodes most
      // pending groups hold one or two rollouts in flight, so a cap counted in groups alone left
      // most of a large fleet idle (2000 slots: 468 busy). The cap also allows groups enough for
      // every slot three times over.
      const cap = Math.max(maxGroupsPerRound * (maxStaleness + 1), Math.ceil((3 * slots) / groupSize));
      want = Math.min(Math.ceil((target - (ledger.inFlight() - finished)) / groupSize), cap - pending);
    }
    if (want <= 0) return 0;
    // Every rollout of a pending group, and of the groups decided but not yet trained, may be held
    // unacked; past max_ack_pending JetStream delivers nothing more and the round could never end.
    const room = await this.roomForHeld((pending + want + maxGroupsPerRound) * groupSize);
    want = Math.min(want, Math.floor(room / groupSize) - pending - maxGroupsPerRound);
    return want > 0 ? this.dispatchGroups(ledger, stats, want, maxSteps) : 0;
  }

  /**
   * Makes the learner consumer's max_ack_pending at least `held` (raised to 1.5× that, so it is
   * not raised at every top-up); returns what it allows. A failed raise is logged once and the
   * caller dispatches within the current limit.
   */
  private async roomForHeld(held: number): Promise<number> {
    if (held <= this.scoredMaxAckPending || this.scoredRaiseFailed) return this.scoredMaxAckPending;
    const next = Math.ceil(held * 1.5);
    try {
      const ci = await withRetry('raise the learner consumer max_ack_pending', () => this.d.bus.jsm.consumers.update(STREAM_SCORED, this.scoredConsumer, { max_ack_pending: next }), this.retry);
      this.d.logger.info({ from: this.scoredMaxAckPending, to: ci.config.max_ack_pending, held }, 'raised the learner consumer max_ack_pending: the results it may hold outgrew it');
      this.scoredMaxAckPending = ci.config.max_ack_pending ?? next;
    } catch (e) {
      this.scoredRaiseFailed = true;
      this.d.logger.warn({ err: e, maxAckPending: this.scoredMaxAckPending, held }, 'raising the learner consumer max_ack_pending failed; dispatch stays within it (raise OWRL_SCORED_MAX_ACK_PENDING)');
    }
    return this.scoredMaxAckPending;
  }

  /** Queue lag of every ingested result (dispatch to the actor's start) and its ingest lag (judged to ingested). */
  private observeLag(scored: ScoredTrajectory): void {
    const traj = scored.trajectory;
    const req = traj?.request;
    if (req && traj.startedAtMs > 0n && req.dispatchedAtMs > 0n) this.d.metrics.queueLagSeconds.observe(Math.max(0, Number(traj.startedAtMs - req.dispatchedAtMs) / 1000));
    if (scored.judgedAtMs > 0n) this.d.metrics.ingestLagSeconds.observe(Math.max(0, Date.now() - Number(scored.judgedAtMs)) / 1000);
  }

  /**
   * Every task host is blacklisted: says so in the run state and retries the round's dispatch every
   * few seconds until an entry expires or is removed (`owrl blacklist remove`), or the learner stops.
   * Returns the groups dispatched (0 when stopped).
   */
  private async dispatchOnceUnblocked(ledger: RoundLedger, stats: RoundStats, maxSteps: number, log: Logger): Promise<number> {
    log.warn({}, 'every task host is blacklisted: waiting for an entry to expire or be removed');
    this.d.store.change('phase', (s) => {
      s.message = 'waiting: every task host is blacklisted';
    });
    let n = 0;
    while (n === 0 && !this.stopping) {
      await this.inbox.sleep(BLACKLIST_CACHE_MS);
      this.hosts.refresh();
      if (!this.stopping) n = await this.dispatchGroups(ledger, stats, this.d.config.groupsPerRound, maxSteps);
    }
    this.d.store.change('phase', (s) => {
      if (s.message === 'waiting: every task host is blacklisted') s.message = '';
    });
    return n;
  }
}
