// The actor: pulls rollout requests (one per free browser slot), runs each episode in a fresh
// browser context with the current policy, publishes the trajectory and only then acks. Holds no
// state that must survive it: a crash leaves the request un-acked, and JetStream redelivers it.
// A request whose host is blacklisted is answered with INIT_ERROR `host_blacklisted`, unrun.
import type { BrowserPool } from '@owrl/browser-env';
import { hostOf, mulberry32, REASON_HOST_BLACKLISTED } from '@owrl/core';
import {
  DiagnosticsSchema,
  make,
  RolloutRequestSchema,
  TerminationClass,
  terminationClassName,
  TerminationSchema,
  TrajectorySchema,
  type PolicyTrace,
  type RolloutRequest,
  type Trajectory,
} from '@owrl/proto';
import { withSession } from '@owrl/tasks';
import {
  Blacklist,
  BlacklistCache,
  CONSUMER_ACTORS,
  isEntryBlocking,
  STREAM_TASKS,
  trajSubject,
  type ActorRegistry,
  type BlacklistEntry,
  type Bus,
  type Delivery,
  type WeightsPointer,
} from '@owrl/bus';
import type { Logger, Meter } from '@owrl/core';
import { createActorMetrics, type ActorMetrics } from './actor-metrics.js';
import type { ActorConfig } from './config.js';
import type { PolicyHolder } from './policy-holder.js';
import { buildTrajectory, fitPayload, sandboxFailure } from './trajectory-builder.js';

export interface ActorDeps {
  config: ActorConfig;
  bus: Bus;
  pool: BrowserPool;
  policies: PolicyHolder;
  weights: WeightsPointer;
  registry: ActorRegistry;
  meter: Meter;
  logger: Logger;
}

/** How long the actor reuses a blacklist look-up of a host. */
const BLACKLIST_CACHE_MS = 10_000;

export class Actor {
  private busy = 0;
  private hosts: BlacklistCache | null = null;
  private episodes = 0;
  private consumer: { stop(): Promise<void> } | null = null;
  private stopWatch: (() => Promise<void>) | null = null;
  private heartbeat: NodeJS.Timeout | null = null;
  private readonly m: ActorMetrics;

  constructor(private readonly d: ActorDeps) {
    this.m = createActorMetrics(d.meter);
  }

  async start(): Promise<void> {
    const { config, weights, policies } = this.d;
    this.hosts = new BlacklistCache(await Blacklist.open(this.d.bus), BLACKLIST_CACHE_MS);
    this.stopWatch = await weights.watch((a) => policies.offer(a));
    this.heartbeat = setInterval(() => void this.beat(), config.heartbeatMs);
    this.heartbeat.unref();
    await this.beat();
    this.consumer = await this.d.bus.consume({
      stream: STREAM_TASKS,
      consumer: CONSUMER_ACTORS,
      schema: RolloutRequestSchema,
      maxInFlight: config.slots,
      handler: (delivery) => this.handle(delivery),
    });
  }

  private async beat(): Promise<void> {
    try {
      await this.d.registry.heartbeat(this.d.config.actorId, {
        slots: this.d.config.slots,
        busy: this.busy,
        policyVersion: Math.max(0, this.d.policies.version),
        rssBytes: process.memoryUsage().rss,
        episodes: this.episodes,
      });
    } catch (e) {
      this.d.logger.warn({ err: e }, 'heartbeat failed');
    }
  }

  private async handle(delivery: Delivery<RolloutRequest>): Promise<void> {
    const req = delivery.value;
    const log = this.d.logger.child({ run: req.runId, round: Number(req.round), group: req.group, trajectory: req.trajectoryId });
    const started = Date.now();
    this.busy++;
    this.m.busy.set(this.busy);
    let policyVersion = this.d.policies.version;
    let trajectory = await this.skipIfBlacklisted(req, started, log);
    if (!trajectory) {
      try {
        await this.d.policies.waitFor(Number(req.minPolicyVersion), this.d.config.policyWaitMs);
        const held = this.d.policies.acquire();
        policyVersion = held.version;
        this.m.policyVersion.set(policyVersion);
        try {
          const task = req.task;
          if (!task) throw new Error(`rollout ${req.trajectoryId} carries no task`);
          const rng = mulberry32(Number(req.seed % 4294967296n));
          const pageExpression = task.verifier?.kind.case === 'pageExpression' ? task.verifier.kind.value.expression : undefined;
          const result = await this.d.pool.runEpisode<PolicyTrace>(
            {
              // A bundled site keeps each rollout's state apart by the session in its start URL.
              startUrl: task.site && req.sessionId ? withSession(task.startUrl, req.sessionId) : task.startUrl,
              instruction: task.instruction,
              maxSteps: req.maxSteps,
              ...(pageExpression ? { pageExpression } : {}),
              // Only a judge model reads the final screenshot; verifier-judged tasks skip it.
              finalScreenshot: task.verifier === undefined,
            },
            { needsScreenshot: held.policy.needsScreenshot, decide: (input, signal) => held.policy.decide(input, signal, rng) },
            { onStep: () => delivery.working() },
          );
          trajectory = buildTrajectory({ request: req, actorId: this.d.config.actorId, policyVersion, result, startedAtMs: started, actorRssBytes: process.memoryUsage().rss });
        } finally {
          held.release();
        }
      } catch (e) {
        log.error({ err: e }, 'episode could not run');
        trajectory = sandboxFailure(req, this.d.config.actorId, policyVersion, 'actor_error', e, started);
      }
    }
    const fit = fitPayload(trajectory, Math.floor(this.d.config.maxPayloadBytes * 0.95));
    if (fit.trimmed.length > 0) log.warn({ bytes: fit.bytes, trimmed: fit.trimmed }, 'trajectory trimmed to fit the bus payload limit');
    // Publish first, then ack: a crash in between gives a redelivery, deduped downstream by id.
    await this.d.bus.publish(trajSubject(req.runId), TrajectorySchema, trajectory, { msgId: req.trajectoryId });
    await delivery.ack();
    const className = terminationClassName(trajectory.termination?.class);
    this.m.episodes.inc({ class: className, reason: trajectory.termination?.reason ?? '' });
    this.m.duration.observe((Date.now() - started) / 1000);
    this.episodes++;
    this.busy--;
    this.m.busy.set(this.busy);
    log.info({ termination: className, reason: trajectory.termination?.reason, steps: trajectory.steps.length, policyVersion, ms: Date.now() - started }, 'episode finished');
  }

  /**
   * The trajectory that answers `req` without opening a browser when its start host is
   * blacklisted; null otherwise (also when the blacklist cannot be read: the episode then runs).
   */
  private async skipIfBlacklisted(req: RolloutRequest, started: number, log: Logger): Promise<Trajectory | null> {
    const host = hostOf(req.task?.startUrl ?? '');
    if (!host || !this.hosts) return null;
    let entry: BlacklistEntry | null;
    try {
      entry = await this.hosts.entry(host);
    } catch (e) {
      log.warn({ err: e, host }, 'blacklist look-up failed; running the episode');
      return null;
    }
    if (!entry || !isEntryBlocking(entry, Date.now())) return null;
    const message = `${host} is blacklisted until ${new Date(entry.untilMs).toISOString()} (${entry.reason}, ${entry.failures} failures)`;
    return make(TrajectorySchema, {
      trajectoryId: req.trajectoryId,
      request: req,
      actorId: this.d.config.actorId,
      policyVersion: BigInt(Math.max(0, this.d.policies.version)),
      termination: make(TerminationSchema, { class: TerminationClass.INIT_ERROR, reason: REASON_HOST_BLACKLISTED, message }),
      diagnostics: make(DiagnosticsSchema, { wallMs: Date.now() - started }),
      startedAtMs: BigInt(started),
      finishedAtMs: BigInt(Date.now()),
    });
  }

  async stop(): Promise<void> {
    await this.stopWatch?.();
    if (this.heartbeat) clearInterval(this.heartbeat);
    await this.consumer?.stop();
  }
}
