// The learner's training loop (sync mode): per round it schedules groups of rollouts, collects
// their scored trajectories, re-dispatches infrastructure failures, applies dynamic sampling
// (drop all-0/all-1 groups, refill up to a cap), runs the clipped GRPO update, publishes the new
// policy (artifact + sha256 + KV pointer), checkpoints, and only then acks the scored messages.
import { mulberry32, fnv1a, hostOf, REASON_HOST_BLACKLISTED } from '@owrl/core';
import {
  make,
  PolicyArtifactSchema,
  RolloutRequestSchema,
  RoundSummarySchema,
  DifficultyStatSchema,
  SuiteStatSchema,
  GroupInfoSchema,
  ListGroupsResponseSchema,
  RunPhase,
  ScoredTrajectorySchema,
  terminationClassName,
  type ListGroupsResponse,
  type RoundSummary,
  type ScoredTrajectory,
  type Task,
} from '@owrl/proto';
import { recordShadow } from './judge-calibration.js';
import { CONSUMER_LEARNER, STREAM_SCORED, taskSubject, type Bus, type Delivery, type WeightsPointer, type Blacklist } from '@owrl/bus';
import { exportOnnx, POLICY_KIND, type PointerModel } from '@owrl/policy';
import { Curriculum, groupAdvantages, groupFate, type GrpoTrainer, type GroupLike } from '@owrl/rl';
import { withSession } from '@owrl/tasks';
import type { Logger } from '@owrl/telemetry';
import type { ArtifactServer } from './artifact-server.js';
import type { CheckpointStore, RestoredCheckpoint } from './checkpoint.js';
import type { LearnerConfig } from './config.js';
import { HostGuard } from './host-guard.js';
import type { LearnerMetrics } from './metrics.js';
import { RoundLedger, type GroupState } from './round-ledger.js';
import { recordUpdateHealth } from './update-health.js';
import type { RunStateStore } from './run-state-store.js';
import type { TaskScheduler } from './scheduler.js';
import type { LearnerControl } from './grpc-server.js';

export interface LearnerDeps {
  config: LearnerConfig;
  bus: Bus;
  store: RunStateStore;
  scheduler: TaskScheduler;
  model: PointerModel;
  trainer: GrpoTrainer;
  artifacts: ArtifactServer;
  weights: WeightsPointer;
  blacklist: Blacklist;
  checkpoints: CheckpointStore;
  /** Checkpoint the model and optimizer were restored from (OWRL_RESUME). */
  restored: RestoredCheckpoint | null;
  metrics: LearnerMetrics;
  logger: Logger;
}

/** How long a blacklist look-up is reused, and the poll interval while every task host is blocked. */
const BLACKLIST_CACHE_MS = 5000;

interface Pending {
  scored: ScoredTrajectory;
  delivery: Delivery<ScoredTrajectory>;
}

export class Learner implements LearnerControl {
  private readonly inbox: Pending[] = [];
  private wake: (() => void) | null = null;
  private paused = false;
  private stopped = false;
  private policyVersion = 0;
  private readonly curriculum: Curriculum;
  private readonly history: { ledger: RoundLedger }[] = [];
  private readonly rng;
  private consumer: { stop(): Promise<void> } | null = null;
  private startRound = 0;
  private readonly hosts: HostGuard;

  constructor(private readonly d: LearnerDeps) {
    this.curriculum = new Curriculum(d.config.curriculum);
    this.rng = mulberry32(d.config.seed);
    this.hosts = new HostGuard(
      d.blacklist,
      { threshold: d.config.blacklistFailures, windowMs: d.config.blacklistWindowMs, ttlMs: d.config.blacklistTtlMs, cacheMs: BLACKLIST_CACHE_MS },
      d.metrics,
      d.logger.child({ component: 'host-guard' }),
    );
  }

  // --- LearnerControl (gRPC) ---
  pause(reason: string): void {
    this.paused = true;
    this.d.store.change('phase', (s) => {
      s.phase = RunPhase.PAUSED;
      s.message = reason ? `paused: ${reason}` : 'paused';
    });
  }

  resume(): void {
    this.paused = false;
    this.d.store.change('phase', (s) => {
      s.phase = RunPhase.RUNNING;
      s.message = '';
    });
    this.notify();
  }

  listGroups(round: number): ListGroupsResponse {
    const entry = this.history.find((h) => h.ledger.round === round);
    const groups = entry ? [...entry.ledger.groups.values()] : [];
    return make(ListGroupsResponseSchema, {
      groups: groups.map((g) =>
        make(GroupInfoSchema, {
          round: BigInt(g.round),
          group: g.group,
          taskId: g.task.id,
          rewards: g.rewards,
          advantages: g.advantages,
          fate: g.fate,
          trajectoryIds: g.samples.map((s) => s.trajectoryId),
          difficulty: g.task.difficulty,
        }),
      ),
    });
  }

  getTrajectory(id: string): ScoredTrajectory | undefined {
    for (const { ledger } of this.history) {
      for (const g of ledger.groups.values()) for (const s of g.samples) if (s.scored?.trajectoryId === id) return s.scored;
    }
    return undefined;
  }

  stop(): void {
    this.stopped = true;
    this.notify();
  }

  // --- loop ---
  async run(): Promise<void> {
    const { config, bus, store, logger } = this.d;
    const restored = this.d.restored;
    if (restored) {
      this.startRound = restored.nextRound;
      this.policyVersion = restored.policyVersion;
      store.change('snapshot', (s) => {
        s.counters = restored.counters;
        s.rounds = restored.rounds;
        s.round = BigInt(restored.nextRound);
        s.policyVersion = BigInt(restored.policyVersion);
      });
      logger.info({ round: restored.nextRound, policyVersion: restored.policyVersion }, 'resumed from checkpoint');
    }
    await this.publishPolicy(this.policyVersion);
    this.consumer = await bus.consume({
      stream: STREAM_SCORED,
      consumer: CONSUMER_LEARNER,
      schema: ScoredTrajectorySchema,
      maxInFlight: 10_000,
      autoAck: false,
      handler: async (delivery) => {
        this.inbox.push({ scored: delivery.value, delivery });
        this.notify();
      },
    });
    store.change('phase', (s) => {
      s.phase = RunPhase.RUNNING;
    });
    try {
      for (let round = this.startRound; round < config.rounds && !this.stopped; round++) {
        await this.waitWhilePaused();
        if (this.stopped) break;
        await this.runRound(round);
      }
      store.change('phase', (s) => {
        s.phase = this.stopped ? RunPhase.FAILED : RunPhase.FINISHED;
        if (this.stopped) s.message = 'stopped before the last round';
      });
    } finally {
      await this.consumer?.stop();
    }
  }

  private notify(): void {
    const w = this.wake;
    this.wake = null;
    w?.();
  }

  private async nextEvent(deadline: number): Promise<Pending | null> {
    while (this.inbox.length === 0) {
      if (this.stopped || Date.now() >= deadline) return null;
      await new Promise<void>((resolve) => {
        this.wake = resolve;
        setTimeout(resolve, Math.min(1000, Math.max(1, deadline - Date.now()))).unref();
      });
    }
    return this.inbox.shift() ?? null;
  }

  private async waitWhilePaused(): Promise<void> {
    while (this.paused && !this.stopped) {
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
    }
  }

  private async dispatch(ledger: RoundLedger, g: GroupState, sample: number, attempt: number, maxSteps: number): Promise<void> {
    const id = ledger.id(g.group, sample, attempt);
    const sessionId = `${fnv1a(id).toString(36)}${fnv1a(id, 0x9e3779b9).toString(36)}`;
    const task = { ...g.task, startUrl: g.task.site ? withSession(g.task.startUrl, sessionId) : g.task.startUrl } as Task;
    const req = make(RolloutRequestSchema, {
      runId: ledger.runId,
      round: BigInt(ledger.round),
      group: g.group,
      sample,
      attempt,
      trajectoryId: id,
      task,
      maxSteps,
      policyVersion: BigInt(this.policyVersion),
      minPolicyVersion: BigInt(this.policyVersion),
      sessionId,
      dispatchedAtMs: BigInt(Date.now()),
      temperature: this.d.config.temperature,
      seed: BigInt(Math.floor(this.rng() * 2 ** 32)),
    });
    await this.d.bus.publish(taskSubject(ledger.runId), RolloutRequestSchema, req, { msgId: id });
    this.d.metrics.dispatched.inc();
    const c = this.d.store.mutable.counters;
    if (c) {
      c.dispatched += 1n;
      c.inFlight += 1n;
      if (attempt > 0) c.redispatched += 1n;
    }
  }

  private async dispatchGroups(ledger: RoundLedger, count: number, maxSteps: number): Promise<number> {
    const blocked = await this.hosts.blockedHosts();
    const tasks = this.d.scheduler.pick(count, (h) => blocked.has(h));
    const first = ledger.groups.size;
    for (const [i, task] of tasks.entries()) {
      const group = first + i;
      ledger.addGroup(group, task, this.d.config.groupSize);
      const g = ledger.groups.get(group) as GroupState;
      for (let s = 0; s < this.d.config.groupSize; s++) await this.dispatch(ledger, g, s, 0, maxSteps);
    }
    this.d.store.change('progress', () => {});
    return tasks.length;
  }

  private async runRound(round: number): Promise<void> {
    const { config, store, logger, metrics } = this.d;
    const t0 = Date.now();
    const maxSteps = this.curriculum.maxStepsForRound(round);
    const ledger = new RoundLedger(config.runId, round, config.maxAttempts);
    this.history.push({ ledger });
    if (this.history.length > 20) this.history.shift();
    const log = logger.child({ run: config.runId, round });
    store.change('round', (s) => {
      s.round = BigInt(round);
    });
    const deliveries: Delivery<ScoredTrajectory>[] = [];
    const summary = make(RoundSummarySchema, { round: BigInt(round), policyVersion: BigInt(this.policyVersion), maxSteps });
    const byDifficulty = new Map<number, { episodes: number; successes: number }>();
    const bySuite = new Map<string, { episodes: number; successes: number }>();
    let steps = 0;
    let rewardSum = 0;

    let dispatchedGroups = await this.dispatchGroups(ledger, config.groupsPerRound, maxSteps);
    if (dispatchedGroups === 0) dispatchedGroups = await this.dispatchOnceUnblocked(ledger, maxSteps, log);
    if (dispatchedGroups === 0) return; // stopped while every host was blocked
    const deadline = t0 + config.roundTimeoutMs;
    const c = () => store.mutable.counters!;

    for (;;) {
      if (ledger.inFlight() === 0) {
        // Dynamic sampling: refill when too few groups carry signal, up to the cap.
        const kept = ledger.completeGroups().filter((g) => groupFate(g.rewards) === 'kept').length;
        const missing = config.groupsPerRound - kept;
        if (missing > 0 && dispatchedGroups < config.maxGroupsPerRound && !this.stopped) {
          const n = Math.min(missing, config.maxGroupsPerRound - dispatchedGroups);
          const added = await this.dispatchGroups(ledger, n, maxSteps);
          dispatchedGroups += added;
          if (added > 0) continue;
          log.warn({ missing }, 'no refill: every task host is blacklisted');
        }
        break;
      }
      const ev = await this.nextEvent(deadline);
      if (!ev) {
        const n = ledger.abandonInFlight();
        c().inFlight -= BigInt(n);
        log.warn({ abandoned: n }, 'round timed out: rollouts still in flight are abandoned');
        break;
      }
      const res = ledger.ingest(ev.scored);
      if (res.kind === 'duplicate') {
        c().duplicatesDropped += 1n;
        await ev.delivery.ack();
        continue;
      }
      if (res.kind === 'late') {
        c().lateDropped += 1n;
        await ev.delivery.ack();
        continue;
      }
      deliveries.push(ev.delivery);
      c().scoredIngested += 1n;
      c().inFlight -= 1n;
      const traj = ev.scored.trajectory;
      const cls = terminationClassName(traj?.termination?.class);
      summary.terminations[cls] = (summary.terminations[cls] ?? 0) + 1;
      const stTerm = store.mutable.terminations;
      stTerm[cls] = (stTerm[cls] ?? 0n) + 1n;
      metrics.terminations.inc({ class: cls, host: hostOf(traj?.request?.task?.startUrl ?? '') });
      recordShadow(store.mutable, ev.scored);
      const req = traj?.request;
      if (req && traj.startedAtMs > 0n && req.dispatchedAtMs > 0n) metrics.queueLagSeconds.observe(Math.max(0, Number(traj.startedAtMs - req.dispatchedAtMs) / 1000));
      if (res.kind === 'trainable') {
        c().trainable += 1n;
        metrics.staleness.observe(Math.max(0, this.policyVersion - Number(traj?.policyVersion ?? BigInt(this.policyVersion))));
        const reward = ev.scored.verdict?.reward ?? 0;
        rewardSum += reward;
        summary.episodes += 1;
        steps += traj?.steps.length ?? 0;
        if (reward > 0.5) summary.successes += 1;
        const diff = res.group.task.difficulty;
        const d = byDifficulty.get(diff) ?? { episodes: 0, successes: 0 };
        d.episodes += 1;
        if (reward > 0.5) d.successes += 1;
        byDifficulty.set(diff, d);
        const suite = res.group.task.suite || '(none)';
        const su = bySuite.get(suite) ?? { episodes: 0, successes: 0 };
        su.episodes += 1;
        if (reward > 0.5) su.successes += 1;
        bySuite.set(suite, su);
        this.d.scheduler.record(res.group.task.id, reward);
      } else {
        c().excluded += 1n;
        summary.excluded[res.reason] = (summary.excluded[res.reason] ?? 0) + 1;
        store.mutable.excluded[res.reason] = (store.mutable.excluded[res.reason] ?? 0n) + 1n;
        metrics.excluded.inc({ reason: res.reason });
        await this.hosts.observe(ev.scored);
        if (res.redispatch) {
          const host = hostOf(res.group.task.startUrl);
          if (await this.hosts.isBlocked(host)) {
            ledger.cancelRedispatch(res.group.group, res.redispatch.sample);
            metrics.cancelled.inc({ reason: REASON_HOST_BLACKLISTED });
            log.info({ group: res.group.group, sample: res.redispatch.sample, host }, 're-dispatch cancelled: the task host is blacklisted');
          } else {
            await this.dispatch(ledger, res.group, res.redispatch.sample, res.redispatch.attempt, maxSteps);
          }
        }
      }
      store.change('progress', () => {});
    }

    // Dynamic sampling and advantages.
    const trainGroups: GroupLike[] = [];
    for (const g of ledger.groups.values()) {
      if (g.fate === 'abandoned') {
        c().groupsAbandoned += 1n;
        metrics.groups.inc({ fate: 'abandoned' });
        continue;
      }
      if (!g.samples.every((s) => s.status === 'done')) continue;
      const fate = groupFate(g.rewards);
      g.fate = fate === 'dropped_all_equal' ? 'dropped_all_zero' : fate;
      if (g.fate === 'kept') {
        g.advantages = groupAdvantages(g.rewards);
        summary.groupsKept += 1;
        trainGroups.push({
          rewards: g.rewards,
          trajectories: g.samples.map((s) => ({
            steps: (s.scored?.trajectory?.steps ?? []).flatMap((st) => (st.trace?.kind.case === 'pointer' ? [st.trace.kind.value] : [])),
          })),
        });
      } else if (g.fate === 'dropped_all_zero') summary.groupsDroppedAllZero += 1;
      else if (g.fate === 'dropped_all_one') summary.groupsDroppedAllOne += 1;
      metrics.groups.inc({ fate: g.fate });
    }
    if (trainGroups.length > 0) {
      const tu = Date.now();
      const u = this.d.trainer.update(trainGroups);
      recordUpdateHealth(summary, u.epochs, metrics);
      summary.updateS = (Date.now() - tu) / 1000;
      metrics.updateSeconds.observe(summary.updateS);
      this.policyVersion += 1;
      const tp = Date.now();
      await this.publishPolicy(this.policyVersion);
      summary.publishS = (Date.now() - tp) / 1000;
      metrics.weightSyncSeconds.observe(summary.publishS);
      c().updates += 1n;
    }
    summary.successRate = summary.episodes > 0 ? summary.successes / summary.episodes : 0;
    summary.meanSteps = summary.episodes > 0 ? steps / summary.episodes : 0;
    summary.wallS = (Date.now() - t0) / 1000;
    summary.byDifficulty = [...byDifficulty.entries()]
      .sort((a, b) => a[0] - b[0])
      .map(([difficulty, v]) => make(DifficultyStatSchema, { difficulty, episodes: v.episodes, successes: v.successes }));
    summary.bySuite = [...bySuite.entries()]
      .sort((a, b) => a[0].localeCompare(b[0]))
      .map(([suite, v]) => make(SuiteStatSchema, { suite, episodes: v.episodes, successes: v.successes }));
    c().groupsKept += BigInt(summary.groupsKept);
    c().groupsDroppedAllZero += BigInt(summary.groupsDroppedAllZero);
    c().groupsDroppedAllOne += BigInt(summary.groupsDroppedAllOne);
    metrics.successRate.set(summary.successRate);
    metrics.rewardMean.set(summary.episodes > 0 ? rewardSum / summary.episodes : 0);
    metrics.policyVersion.set(this.policyVersion);

    store.change('update', (s) => {
      s.rounds.push(summary as RoundSummary);
      s.policyVersion = BigInt(this.policyVersion);
      s.round = BigInt(round + 1);
    });
    // Lossless: ack the round's scored trajectories only once the update that used them is checkpointed.
    this.d.checkpoints.save({
      nextRound: round + 1,
      policyVersion: this.policyVersion,
      model: this.d.model,
      optimizer: this.d.trainer.optimizer,
      counters: store.mutable.counters!,
      rounds: store.mutable.rounds,
    });
    for (const dl of deliveries) await dl.ack();
    log.info(
      {
        policyVersion: this.policyVersion,
        successRate: Number(summary.successRate.toFixed(3)),
        episodes: summary.episodes,
        kept: summary.groupsKept,
        droppedAllZero: summary.groupsDroppedAllZero,
        droppedAllOne: summary.groupsDroppedAllOne,
        loss: summary.loss,
        clipFraction: Number(summary.clipFraction.toFixed(3)),
        wallS: summary.wallS,
      },
      'round finished',
    );
  }

  /**
   * Every task host is blacklisted: says so in the run state and retries the round's dispatch every
   * few seconds until an entry expires or is removed (`owrl blacklist remove`), or the learner stops.
   * Returns the groups dispatched (0 when stopped).
   */
  private async dispatchOnceUnblocked(ledger: RoundLedger, maxSteps: number, log: Logger): Promise<number> {
    log.warn({}, 'every task host is blacklisted: waiting for an entry to expire or be removed');
    this.d.store.change('phase', (s) => {
      s.message = 'waiting: every task host is blacklisted';
    });
    let n = 0;
    while (n === 0 && !this.stopped) {
      await new Promise<void>((resolve) => {
        this.wake = resolve;
        setTimeout(resolve, BLACKLIST_CACHE_MS).unref();
      });
      if (!this.stopped) n = await this.dispatchGroups(ledger, this.d.config.groupsPerRound, maxSteps);
    }
    this.d.store.change('phase', (s) => {
      if (s.message === 'waiting: every task host is blacklisted') s.message = '';
    });
    return n;
  }

  private async publishPolicy(version: number): Promise<void> {
    const bytes = exportOnnx(this.d.model);
    const art = this.d.artifacts.put(version, bytes);
    await this.d.weights.put(
      make(PolicyArtifactSchema, {
        version: BigInt(version),
        uri: art.uri,
        sha256: art.sha256,
        bytes: BigInt(art.bytes),
        kind: POLICY_KIND,
        runId: this.d.config.runId,
        createdAtMs: BigInt(Date.now()),
        temperature: this.d.model.temperature,
      }),
    );
    this.d.logger.info({ policyVersion: version, uri: art.uri, bytes: art.bytes }, 'policy published');
  }
}
