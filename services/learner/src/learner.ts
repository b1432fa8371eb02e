// The learner: wires the parts of the training loop and runs it — resume from the checkpoint,
// publish the policy in force, take the run's scored trajectories in, run the rounds (round.ts,
// each one's steps in order: dispatch, ingest, refill, update → checkpoint → publish → ack), then
// keep counting and acking late results until stopped.
//
// Restart-safe: the round ledger and the round's counts are saved on every change (round.json,
// round-saver.ts), the end-of-round checkpoint holds weights, optimizer, scheduler, RNG, host
// windows and the ids the round consumed (checkpoint-builder.ts). A restarted learner (a new
// incarnation, so new ids) re-dispatches what is missing (resume.ts), takes back the results held
// unacked before the crash (they return within ack_wait) and never trains on a result twice. A
// SIGTERM lets the round finish within a grace; otherwise the round is left for the next start,
// never trained truncated. Bus errors follow the failure policy (failure-policy.ts); a fatal one
// propagates out of run().
//
// Async mode (OWRL_MODE=async): dispatch keeps every actor slot busy (dispatcher.ts, top-up.ts);
// a round ends at an update, as soon as `groupsPerRound` kept groups are in, and the groups still
// in flight carry over into the next round's ledger (saved in the checkpoint) with their held
// deliveries. The update trains while the next round goes on (pending-update.ts). A result
// produced more than OWRL_MAX_STALENESS versions before the update is dropped as `stale`
// (counted) and its slot re-dispatched; the update's importance ratio uses the behaviour
// log-probs of the rollout.
import { SeededRng, type Logger } from '@owrl/core';
import { RunPhase } from '@owrl/proto';
import type { Bus, WeightsPointer, Blacklist } from '@owrl/bus';
import type { PointerModel } from '@owrl/policy';
import { Curriculum, type GrpoTrainer } from '@owrl/rl';
import { AckBudget } from './ack-budget.js';
import type { ArtifactServer } from './artifact-server.js';
import type { CheckpointStore, RestoredCheckpoint } from './checkpoint.js';
import { CheckpointBuilder } from './checkpoint-builder.js';
import type { LearnerConfig } from './config.js';
import { RunControl } from './control.js';
import { CrashPoints } from './crash-point.js';
import { BLACKLIST_CACHE_MS, Dispatcher } from './dispatcher.js';
import { STOPPED_FAILURE_CODE } from './errors.js';
import type { RetryOptions } from './failure-policy.js';
import { failureRulesState } from './failure-rules.js';
import { HostGuard } from './host-guard.js';
import { Inbox } from './inbox.js';
import { LearnerState } from './learner-state.js';
import type { LearnerMetrics } from './metrics.js';
import { PendingUpdate } from './pending-update.js';
import { PolicyPublisher, type PolicyPublisherDeps, type RemoteTrainerBinding } from './publisher.js';
import { restoreLoop, roundToResume, writtenAheadUpdate } from './resume.js';
import { Round, type Carry, type RoundDeps, type RoundOutcome } from './round.js';
import type { IngestResult } from './round-group.js';
import type { RoundLedger } from './round-ledger.js';
import { RoundSaver } from './round-saver.js';
import { RoundStats } from './round-stats.js';
import type { RunStateStore } from './run-state-store.js';
import type { TaskScheduler } from './scheduler.js';
import { ScoredIntake, type HeldSteps } from './scored-intake.js';
import { StalenessBook } from './staleness.js';

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

export class Learner {
  readonly control: RunControl;
  private readonly state = new LearnerState();
  private readonly inbox: Inbox;
  private readonly curriculum: Curriculum;
  private readonly rng: SeededRng;
  private readonly hosts: HostGuard;
  private readonly crash: CrashPoints;
  private readonly retry: RetryOptions;
  /** Async mode: staleness of the trained trajectories over the run (the stale drops are counters.staleDropped). */
  private readonly stale: StalenessBook;
  private readonly publisher: PolicyPublisher;
  private readonly budget: AckBudget;
  /** The parts a round works with. */
  private readonly parts: RoundDeps;
  private loop: Promise<void> | null = null;
  private draining: Promise<void> | null = null;

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
      stopped: () => this.state.stopDue,
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
    this.budget = new AckBudget(d.bus, this.retry, d.logger);
    this.parts = this.wireRound();
  }

  /** The parts a round works with, built once per run. */
  private wireRound(): RoundDeps {
    const { config, bus, store, metrics, logger, checkpoints, scheduler } = this.d;
    const { state, inbox, hosts, crash, retry, publisher, stale, budget } = this;
    const saver = new RoundSaver(checkpoints, store, () => inbox.pending);
    const checkpoint = new CheckpointBuilder({ checkpoints, store, model: this.d.model, trainer: this.d.trainer, scheduler, rng: this.rng, hosts, curriculum: this.curriculum, stale, state });
    const intake = new ScoredIntake({ bus, config, inbox, budget, retry, logger, ...(this.d.heldSteps ? { heldSteps: this.d.heldSteps } : {}) });
    const dispatcher = new Dispatcher({ config, bus, store, scheduler, hosts, budget, saver, inbox, state, rng: this.rng, crash, retry, metrics, logger });
    const update = new PendingUpdate({ runId: config.runId, publisher, checkpoint, saver, state, store, crash, metrics, logger, wake: () => inbox.notify() });
    return { config, incarnation: this.d.incarnation, store, metrics, logger, state, inbox, intake, dispatcher, saver, update, publisher, checkpoint, hosts, scheduler, stale, crash, control: this.control, curriculum: this.curriculum };
  }

  /**
   * Ends the run: the round in progress may finish within the grace, else it is left for the next
   * start. Resolves once the loop has ended.
   */
  async stop(graceMs = this.d.config.stopGraceMs): Promise<void> {
    if (!this.state.stopping) {
      this.state.stopping = true;
      this.state.stopDeadline = Date.now() + graceMs;
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
    const { config, store, logger, restored } = this.d;
    const { intake, update } = this.parts;
    store.change('snapshot', (s) => {
      s.incarnation = this.d.incarnation;
      // who timeouts are blamed on and what a spent re-dispatch budget does
      s.failureRules = failureRulesState(config.failureRules);
    });
    if (restored) restoreLoop(restored, { state: this.state, scheduler: this.d.scheduler, rng: this.rng, hosts: this.hosts, stale: this.stale, store, logger, incarnation: this.d.incarnation });
    await this.publisher.publish(this.state.policyVersion);
    const ahead = writtenAheadUpdate(restored);
    if (ahead) {
      // An update checkpointed as written ahead, not yet trained into these weights: trained again.
      logger.info({ round: ahead.round, policyVersion: ahead.target }, 'training the written-ahead update again');
      update.start(ahead.round, ahead.target, ahead.summary, null);
    }
    await this.budget.readActors();
    await intake.open();
    store.change('phase', (s) => {
      s.phase = RunPhase.RUNNING;
    });
    this.stale.publish();
    try {
      const { last, end, carry } = await this.runRounds();
      await update.commit(carry?.ledger ?? null, null);
      // Still serving: late results (rollouts abandoned or superseded) are counted and acked. Also
      // after a restart that found every round done (a crash while the last round's update was
      // published, before its results were acked): those results come back and must be acked,
      // or they stay unacked on the run's consumer for good.
      if (this.finish(end)) {
        this.draining = this.drainLate(last)
          .catch((e: unknown) => logger.warn({ err: e }, 'counting late results failed'))
          .finally(() => intake.close());
        return;
      }
    } catch (e) {
      await intake.close();
      throw e;
    }
    await intake.close();
  }

  /** The rounds from the checkpoint's next one to the last, until one is left unfinished or the learner stops. */
  private async runRounds(): Promise<{ last: RoundLedger | null; end: RoundOutcome['end']; carry: Carry | null }> {
    const { config, restored, checkpoints } = this.d;
    let last: RoundLedger | null = null;
    let end: RoundOutcome['end'] = 'finished';
    let carry: Carry | null = null;
    const firstRound = restored?.nextRound ?? 0;
    for (let round = firstRound; round < config.rounds && !this.state.stopping; round++) {
      // A pause holds no update back: one still training is committed first.
      if (this.control.paused) await this.parts.update.commit(carry?.ledger ?? null, null);
      await this.waitWhilePaused();
      if (this.state.stopping) break;
      // The round in progress at a crash (also before the first checkpoint) resumes from its
      // ledger; in async mode, else from the groups the checkpoint carried over.
      const resumed = config.resume && round === firstRound ? roundToResume(checkpoints, restored, round) : null;
      const r = await new Round(this.parts, round).run(resumed, carry);
      last = r.ledger;
      end = r.end;
      carry = r.carry;
      if (end === 'interrupted') break;
    }
    return { last, end, carry };
  }

  /** The run's phase once its rounds are over: FINISHED, or FAILED `stopped` (resumable). Returns whether it finished. */
  private finish(end: RoundOutcome['end']): boolean {
    const finished = !this.state.stopping && end === 'finished';
    this.d.store.change('phase', (s) => {
      s.phase = finished ? RunPhase.FINISHED : RunPhase.FAILED;
      if (!finished) {
        s.failureCode = STOPPED_FAILURE_CODE;
        s.message = 'stopped before the last round; resume with OWRL_RESUME=1';
      }
    });
    return finished;
  }

  private async waitWhilePaused(): Promise<void> {
    while (this.control.paused && !this.state.stopping) await this.inbox.sleep(1000);
  }

  /**
   * After the last round: acks and counts what still arrives, until stopped. `ledger`: the last
   * round's, or null when this start ran no round (everything then counts as another round's).
   */
  private async drainLate(ledger: RoundLedger | null): Promise<void> {
    const stats = new RoundStats(this.d.store, this.d.metrics);
    while (!this.state.stopping) {
      const ev = await this.inbox.next(Infinity, () => this.state.stopping);
      if (!ev) break;
      const res: IngestResult = this.state.settled.has(ev.scored.trajectoryId) ? { kind: 'duplicate' } : ledger ? ledger.ingest(ev.scored) : { kind: 'late', cause: 'other_round' };
      this.d.logger.debug({ trajectory: ev.scored.trajectoryId, kind: res.kind, deliveries: ev.delivery.deliveryCount, seq: ev.delivery.seq }, 'result after the last round dropped');
      stats.ingested(ev.scored, res.kind === 'duplicate' || res.kind === 'late' ? res : { kind: 'late', cause: 'other_round' });
      this.d.store.change('progress', () => {});
      await this.parts.intake.ack([ev]);
    }
  }
}
