// The actor: pulls rollout requests (one per free browser slot), runs each episode in a fresh
// browser context with the current policy, publishes the trajectory and only then acks. Holds no
// state that must survive it: a crash leaves the request un-acked, and JetStream redelivers it.
// A request whose host is blacklisted is answered with INIT_ERROR `host_blacklisted`, unrun.
import type { EpisodeHooks, EpisodePolicy, EpisodeResult, EpisodeSpec } from '@owrl/browser-env';
import { hostOf, mulberry32, REASON_HOST_BLACKLISTED, REASON_POLICY_BEHIND } from '@owrl/core';
import {
  DiagnosticsSchema,
  encode,
  make,
  RolloutRequestSchema,
  TerminationClass,
  terminationClassName,
  TerminationSchema,
  TrajectorySchema,
  type ImageRef,
  type PolicyTrace,
  type RolloutRequest,
  type Trajectory,
} from '@owrl/proto';
import { withSession } from '@owrl/tasks';
import {
  Blacklist,
  BlacklistCache,
  BusErrorCode,
  isBusError,
  CONSUMER_ACTORS,
  isEntryBlocking,
  STREAM_TASKS,
  type ScreenshotStore,
  trajSubject,
  type ActorRegistry,
  type BlacklistEntry,
  type Bus,
  type ConsumeHandle,
  type Delivery,
  type WeightsPointer,
} from '@owrl/bus';
import type { Logger, Meter } from '@owrl/core';
import { createActorMetrics, type ActorMetrics } from './actor-metrics.js';
import type { ActorConfig } from './config.js';
import type { PolicyHolder } from './policy-holder.js';
import { buildTrajectory, fitPayload, sandboxFailure, tooLargeFailure } from './trajectory-builder.js';

/**
 * What the actor needs of the browser pool: BrowserPool in the service, SyntheticEpisodes in a
 * synthetic actor (OWRL_SYNTHETIC=1), which also reads the rollout request.
 */
export interface EpisodeRunner {
  runEpisode(spec: EpisodeSpec, policy: EpisodePolicy<PolicyTrace>, hooks: EpisodeHooks<PolicyTrace> | undefined, request: RolloutRequest): Promise<EpisodeResult<PolicyTrace>>;
}

export interface ActorDeps {
  config: ActorConfig;
  bus: Bus;
  pool: EpisodeRunner;
  policies: PolicyHolder;
  weights: WeightsPointer;
  registry: ActorRegistry;
  /** Where step screenshots go (steps then carry an ImageRef); none kept without it. */
  shots?: ScreenshotStore;
  meter: Meter;
  logger: Logger;
}

/** How long the actor reuses a blacklist look-up of a host. */
const BLACKLIST_CACHE_MS = 10_000;

export class Actor {
  private busy = 0;
  private hosts: BlacklistCache | null = null;
  private episodes = 0;
  /** rssBytes(): the last reading and when it was taken (performance.now()). */
  private rss = 0;
  private rssAt = -Infinity;
  private consumer: ConsumeHandle | null = null;
  private registered = false;
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
      // The request is acked after its trajectory is stored; a lost ack brings it back, and the
      // episode run again is published under the same trajectory id, which OWRL_TRAJ (duplicate
      // window), the judge and the learner drop: no confirmation (a request and its reply) to wait for.
      confirmAcks: false,
      ...(config.maxEpisodes ? { maxMessages: config.maxEpisodes } : {}),
      handler: (delivery) => this.handle(delivery),
    });
  }

  /**
   * With `maxEpisodes` set: resolves once that many requests were taken and each was published
   * and acked (or handed back to the queue); rejects when consumption ended before (the
   * connection closed for good). Without a limit: never settles while the actor runs.
   */
  finished(): Promise<void> {
    const consumer = this.consumer;
    const max = this.d.config.maxEpisodes ?? 0;
    if (!consumer) return Promise.reject(new Error('the actor has not started'));
    if (max <= 0) return new Promise<void>(() => {});
    return consumer.closed.then(() => {
      if (consumer.stats.handled < max) throw new Error(`rollout consumption ended after ${consumer.stats.handled} of OWRL_MAX_EPISODES=${max} requests`);
      this.d.logger.info({ maxEpisodes: max, episodes: this.episodes, failed: consumer.stats.failed }, 'served OWRL_MAX_EPISODES requests; draining');
    });
  }

  private async beat(): Promise<void> {
    try {
      this.registered = true;
      await this.d.registry.heartbeat(this.d.config.actorId, {
        slots: this.d.config.slots,
        busy: this.busy,
        policyVersion: Math.max(0, this.d.policies.version),
        rssBytes: process.memoryUsage().rss,
        episodes: this.episodes,
        intervalMs: this.d.config.heartbeatMs,
      });
    } catch (e) {
      this.d.logger.warn({ err: e }, 'heartbeat failed');
    }
  }

  /** Browser slots running an episode (or publishing its trajectory) now. */
  get busySlots(): number {
    return this.busy;
  }

  /** Episodes whose trajectory was published and whose request was acked. */
  get episodesServed(): number {
    return this.episodes;
  }

  private async handle(delivery: Delivery<RolloutRequest>): Promise<void> {
    const req = delivery.value;
    const log = this.d.logger.child({ run: req.runId, round: Number(req.round), group: req.group, trajectory: req.trajectoryId });
    const started = Date.now();
    // The slot is taken here and given back in the one finally below, whatever fails in between.
    this.busy++;
    this.m.busy.set(this.busy);
    try {
      const { trajectory, policyVersion } = await this.runOne(req, delivery, started, log);
      const published = await this.publishDurably(trajectory, delivery, log);
      await delivery.ack();
      const className = terminationClassName(published.termination?.class);
      this.m.episodes.inc({ class: className, reason: published.termination?.reason ?? '' });
      this.m.duration.observe((Date.now() - started) / 1000);
      for (const s of published.steps) {
        const t = s.timing;
        if (!t) continue;
        for (const [phase, ms] of [['policy', t.policyMs], ['action', t.actionMs], ['settle', t.settleMs], ['observe', t.observeMs]] as const) {
          this.m.stepPhase.observe({ phase }, ms / 1000);
        }
      }
      this.episodes++;
      log.info({ termination: className, reason: published.termination?.reason, steps: published.steps.length, policyVersion, ms: Date.now() - started }, 'episode finished');
    } finally {
      this.busy--;
      this.m.busy.set(this.busy);
    }
  }

  /** Runs the episode of `req` (or answers it unrun); never throws: our own failures become SANDBOX_ERROR trajectories. */
  private async runOne(req: RolloutRequest, delivery: Delivery<RolloutRequest>, started: number, log: Logger): Promise<{ trajectory: Trajectory; policyVersion: number }> {
    let policyVersion = this.d.policies.version;
    try {
      const skipped = await this.skipIfBlacklisted(req, started, log);
      if (skipped) return { trajectory: skipped, policyVersion };
      await this.d.policies.waitFor(Number(req.minPolicyVersion), this.d.config.policyWaitMs);
      // Never silently an older policy than the request requires: handed back, counted by the learner.
      if (this.d.policies.behind(Number(req.minPolicyVersion)) && (this.d.policies.version >= 0 || this.d.policies.waitsEnded)) return { trajectory: this.handBack(req, started, log), policyVersion };
      const held = this.d.policies.acquire();
      policyVersion = held.version;
      this.m.policyVersion.set(policyVersion);
      try {
        const task = req.task;
        if (!task) throw new Error(`rollout ${req.trajectoryId} carries no task`);
        const rng = mulberry32(Number(req.seed % 4294967296n));
        const pageExpression = task.verifier?.kind.case === 'pageExpression' ? task.verifier.kind.value.expression : undefined;
        const shots = this.d.shots && this.d.config.stepScreenshots ? this.d.shots : undefined;
        const refs = new Map<number, ImageRef>();
        const result = await this.d.pool.runEpisode(
          {
            // A bundled site keeps each rollout's state apart by the session in its start URL.
            startUrl: task.site && req.sessionId ? withSession(task.startUrl, req.sessionId) : task.startUrl,
            instruction: task.instruction,
            maxSteps: req.maxSteps,
            ...(pageExpression ? { pageExpression } : {}),
            // Only a judge model reads the final screenshot; verifier-judged tasks skip it.
            finalScreenshot: task.verifier === undefined,
            stepScreenshots: shots !== undefined,
          },
          { needsScreenshot: held.policy.needsScreenshot, decide: (input, signal) => held.policy.decide(input, signal, rng) },
          {
            onStep: async (step) => {
              delivery.working();
              if (shots && step.screenshot) {
                // A screenshot that cannot be stored is a gap in the viewer, never a lost trajectory.
                try {
                  refs.set(step.index, await shots.put(step.screenshot));
                } catch (e) {
                  log.warn({ err: e, step: step.index }, 'step screenshot not stored');
                }
              }
            },
          },
          req,
        );
        const trajectory = buildTrajectory({ request: req, actorId: this.d.config.actorId, policyVersion, result, startedAtMs: started, actorRssBytes: this.rssBytes() });
        for (const st of trajectory.steps) {
          const ref = refs.get(st.index);
          if (ref) st.screenshot = ref;
        }
        if (shots && result.finalScreenshot) {
          try {
            trajectory.finalScreenshotRef = await shots.put(result.finalScreenshot);
          } catch (e) {
            log.warn({ err: e }, 'final screenshot not stored');
          }
        }
        return { trajectory, policyVersion };
      } finally {
        held.release();
      }
    } catch (e) {
      log.error({ err: e }, 'episode could not run');
      return { trajectory: sandboxFailure(req, this.d.config.actorId, policyVersion, 'actor_error', e, started), policyVersion };
    }
  }

  /** The process's RSS, read at most once a second (a read of /proc per trajectory cost a synthetic actor ~2 % of its CPU). */
  private rssBytes(): number {
    const now = performance.now();
    if (now - this.rssAt >= 1000) {
      this.rssAt = now;
      this.rss = process.memoryUsage.rss();
    }
    return this.rss;
  }

  /** The payload limit a trajectory is fitted under: the smaller of OWRL_MAX_PAYLOAD and the server's max_payload, with room for headers. */
  payloadLimit(): number {
    const server = this.d.bus.nc.info?.max_payload ?? 0;
    const limit = server > 0 ? Math.min(server, this.d.config.maxPayloadBytes) : this.d.config.maxPayloadBytes;
    return Math.max(1024, Math.floor(limit * 0.95) - 512);
  }

  /** `t` fitted under `limit` (trimmed, or replaced by a trajectory_too_large failure), with its encoding (encoded once: the publish sends these bytes). */
  private fit(t: Trajectory, limit: number, log: Logger): { t: Trajectory; data: Uint8Array } {
    const fit = fitPayload(t, limit);
    if (fit.fits) {
      if (fit.trimmed.length > 0) {
        this.m.trimmed.inc();
        log.warn({ bytes: fit.bytes, limit, trimmed: fit.trimmed }, 'trajectory trimmed to fit the bus payload limit');
      }
      return { t, data: fit.data };
    }
    this.m.tooLarge.inc();
    const failure = tooLargeFailure(t, fit.bytes, limit);
    log.error({ bytes: fit.bytes, limit, trimmed: fit.trimmed, steps: t.steps.length }, 'trajectory too large for the bus even after trimming; published as SANDBOX_ERROR trajectory_too_large');
    return { t: failure, data: encode(TrajectorySchema, failure) };
  }

  /**
   * Publishes the trajectory of a finished episode, retrying with backoff (same Nats-Msg-Id, so a
   * retry that raced a stored copy is deduplicated) for up to OWRL_PUBLISH_RETRY_S while keeping
   * the request's ack deadline alive: a broker restart or a full stream never re-runs the episode.
   * A payload refused as too large is fitted under half the limit and tried again.
   * @returns the trajectory as published.
   * @throws the last BusError once the retry window is spent or the connection is closed for good
   *   (the request is then naked by the consumer and redelivered: the last resort).
   */
  private async publishDurably(trajectory: Trajectory, delivery: Delivery<RolloutRequest>, log: Logger): Promise<Trajectory> {
    let limit = this.payloadLimit();
    let { t, data } = this.fit(trajectory, limit, log);
    const deadline = Date.now() + this.d.config.publishRetryMs;
    const subject = trajSubject(t.request?.runId ?? delivery.value.runId);
    for (let attempt = 1; ; attempt++) {
      try {
        await this.d.bus.publishBytes(subject, data, { msgId: t.trajectoryId });
        if (attempt > 1) log.info({ attempts: attempt }, 'trajectory published after retries');
        return t;
      } catch (e) {
        const code = isBusError(e) ? e.code : 'UNKNOWN';
        if (isBusError(e, BusErrorCode.PayloadTooLarge) && limit > 1024) {
          limit = Math.max(1024, Math.floor(limit / 2));
          log.warn({ err: e, limit }, 'trajectory refused as too large; fitting it under a smaller limit');
          ({ t, data } = this.fit(t, limit, log));
        } else if (isBusError(e, BusErrorCode.Closed) || Date.now() >= deadline) {
          this.m.publishFailures.inc({ code });
          log.error({ err: e, attempts: attempt }, 'trajectory could not be published; the request goes back to the queue');
          throw e;
        }
        this.m.publishRetries.inc({ code });
        const waitMs = Math.max(0, Math.min(this.d.config.publishBackoffMs * 2 ** Math.min(attempt - 1, 10), 10_000, deadline - Date.now()));
        log.warn({ err: e, attempt, waitMs }, 'trajectory publish failed; retrying');
        delivery.working();
        await new Promise((r) => setTimeout(r, waitMs));
        delivery.working();
      }
    }
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

  /** The request answered unrun: the policy it requires did not load within OWRL_POLICY_WAIT_S, or before the actor began to stop. */
  private handBack(req: RolloutRequest, started: number, log: Logger): Trajectory {
    const v = this.d.policies.version;
    const message = this.d.policies.waitsEnded
      ? `policy version ${req.minPolicyVersion} required; this actor ${v >= 0 ? `runs ${v}` : 'has no policy loaded'} and is stopping`
      : `policy version ${req.minPolicyVersion} required; this actor still runs ${v} after waiting ${this.d.config.policyWaitMs / 1000} s`;
    log.warn({ policyVersion: this.d.policies.version, required: Number(req.minPolicyVersion) }, 'request handed back: the policy it requires is not loaded');
    return make(TrajectorySchema, {
      trajectoryId: req.trajectoryId,
      request: req,
      actorId: this.d.config.actorId,
      policyVersion: BigInt(Math.max(0, this.d.policies.version)),
      termination: make(TerminationSchema, { class: TerminationClass.INIT_ERROR, reason: REASON_POLICY_BEHIND, message }),
      diagnostics: make(DiagnosticsSchema, { wallMs: Date.now() - started }),
      startedAtMs: BigInt(started),
      finishedAtMs: BigInt(Date.now()),
    });
  }

  /**
   * Stops pulling, waits for the episodes in flight, then leaves the registry (the fleet view drops
   * it at once, not after the heartbeat timeout). A request waiting for a newer policy (or
   * delivered by a pull still open) is handed back at once: the weights watch ends here, so the
   * version could only come from a restart, and the drain would otherwise last OWRL_POLICY_WAIT_S.
   */
  async stop(): Promise<void> {
    this.d.policies.endWaits();
    await this.stopWatch?.();
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = null;
    await this.consumer?.stop();
    if (this.registered) {
      this.registered = false;
      await this.d.registry.remove(this.d.config.actorId).catch((e: unknown) => this.d.logger.warn({ err: e }, 'leaving the actor registry failed; the entry expires with its TTL'));
    }
  }
}
