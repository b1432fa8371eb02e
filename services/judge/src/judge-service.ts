// The judge service loop: consumes trajectories from OWRL_TRAJ, runs the reward pipeline, and
// publishes one ScoredTrajectory per trajectory to owrl.scored.<run_id> (Nats-Msg-Id =
// trajectory_id) BEFORE acking, so a crash can only cause a redelivery, never a loss. Redeliveries
// of already-published ids are acked and counted, not judged again.
import {
  BusErrorCode,
  CONSUMER_JUDGE,
  STREAM_TRAJ,
  isBusError,
  scoredSubject,
  type Bus,
  type ConsumeHandle,
  type Delivery,
} from '@owrl/bus';
import { lazyChild, noopMeter, parseTrajectoryId, silentLogger, type Logger, type Meter } from '@owrl/core';
import {
  addPair,
  calibrationFigures,
  emptyConfusion,
  type Confusion,
  createVerifiers,
  judgeTrajectory,
  LruSet,
  toScored,
  trajectoryIdOf,
  ExcludedReason,
  type JudgeOutcome,
  type VerdictProvider,
  type Verifiers,
} from '@owrl/judge-core';
import { ScoredTrajectorySchema, TrajectorySchema, clone, decodeTrajectoryLazy, verdictSourceName, type ScoredTrajectory, type Trajectory } from '@owrl/proto';
import { createJudgeMetrics, type JudgeMetrics } from './judge-metrics.js';
import { encodeScoredWith } from './scored-bytes.js';

export interface JudgeServiceOptions {
  bus: Bus;
  logger?: Logger;
  /** Meter of the judge's metrics (none recorded when omitted). */
  meter?: Meter;
  /** Written into every verdict, e.g. `verifier-1`. */
  judgeVersion: string;
  /** Trajectories judged at once (max in-flight deliveries). */
  concurrency: number;
  /** Budget of each verdict source per trajectory, site-state HTTP included. Default 10 000 ms. */
  timeoutMs?: number;
  /** Programmatic checks; default createVerifiers() (global fetch). */
  verifiers?: Verifiers;
  /** Further verdict sources after the task's verifier (the judge model for tasks without one). */
  sources?: readonly VerdictProvider[];
  /**
   * Shadow mode: a source (the judge model) that also judges every trajectory the task verifier
   * decides; its verdict is published as `shadow` and measured against the verifier.
   */
  shadow?: VerdictProvider;
  /** Trajectory ids remembered for redelivery dedupe. Default 100 000. */
  dedupeCapacity?: number;
  /** Clock for judged_at_ms (epoch ms). */
  now?: () => number;
  /** Lifetime of a pull request (>= 1000 ms); bounds how long stop() waits. Bus default 5000. */
  pullExpiresMs?: number;
}

export interface JudgeStats {
  /** Trajectories judged and published (first time). */
  published: number;
  duplicates: number;
  publishFailures: number;
  /** Messages terminated as poison (no usable id or run id, or unpublishable). */
  terminated: number;
  /** Shadow mode: the model against the verifiers since start. */
  shadow: Confusion;
}

export class JudgeService {
  readonly #bus: Bus;
  readonly #log: Logger;
  readonly #metrics: JudgeMetrics;
  readonly #judgeVersion: string;
  readonly #concurrency: number;
  readonly #timeoutMs: number;
  readonly #verifiers: Verifiers;
  readonly #sources: readonly VerdictProvider[];
  readonly #shadow: VerdictProvider | undefined;
  readonly #published: LruSet;
  readonly #inFlight = new Set<string>();
  readonly #now: () => number;
  readonly #pullExpiresMs: number | undefined;
  #handle: ConsumeHandle | null = null;
  readonly stats: JudgeStats = { published: 0, duplicates: 0, publishFailures: 0, terminated: 0, shadow: emptyConfusion() };

  /** @throws RangeError naming the option when judgeVersion, concurrency or timeoutMs is invalid. */
  constructor(opts: JudgeServiceOptions) {
    if (opts.judgeVersion.trim() === '') throw new RangeError(`judgeVersion ${JSON.stringify(opts.judgeVersion)} must not be empty`);
    if (!Number.isInteger(opts.concurrency) || opts.concurrency < 1) throw new RangeError(`concurrency ${opts.concurrency} must be an integer >= 1`);
    const timeoutMs = opts.timeoutMs ?? 10_000;
    if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) throw new RangeError(`timeoutMs ${timeoutMs} must be a positive number`);
    this.#bus = opts.bus;
    this.#log = (opts.logger ?? silentLogger).child({ component: 'judge' });
    this.#metrics = createJudgeMetrics(opts.meter ?? noopMeter);
    this.#judgeVersion = opts.judgeVersion;
    this.#concurrency = opts.concurrency;
    this.#timeoutMs = timeoutMs;
    this.#verifiers = opts.verifiers ?? createVerifiers();
    this.#sources = opts.sources ?? [];
    this.#shadow = opts.shadow;
    this.#published = new LruSet(opts.dedupeCapacity ?? 100_000);
    this.#now = opts.now ?? Date.now;
    this.#pullExpiresMs = opts.pullExpiresMs;
  }

  /** Whether the consumer is running (for /healthz). */
  get running(): boolean {
    return this.#handle !== null;
  }

  /** Resolves when consumption ends (stop(), or the connection closed). */
  get closed(): Promise<void> {
    return this.#handle?.closed ?? Promise.resolve();
  }

  /**
   * Starts consuming OWRL_TRAJ with the durable `judge` consumer (the topology must exist:
   * ensureTopology()). Idempotent.
   */
  async start(): Promise<void> {
    if (this.#handle) return;
    this.#handle = await this.#bus.consume({
      stream: STREAM_TRAJ,
      consumer: CONSUMER_JUDGE,
      schema: TrajectorySchema,
      // The verifiers read the trajectory's own fields, not its steps (most of the bytes): those
      // stay encoded unless a verdict source reads them (the judge model's prompt), and go out
      // as they came (encodeScoredWith).
      decode: decodeTrajectoryLazy,
      maxInFlight: this.#concurrency,
      // Acked once the scored trajectory is stored; a lost ack brings the trajectory back, and its
      // id is then a duplicate here (or in OWRL_SCORED's duplicate window, and at the learner).
      confirmAcks: false,
      handler: (d) => this.#handle_(d),
      ...(this.#pullExpiresMs !== undefined ? { pullExpiresMs: this.#pullExpiresMs } : {}),
    });
    this.#log.info({ judgeVersion: this.#judgeVersion, concurrency: this.#concurrency, timeoutMs: this.#timeoutMs }, 'judge consuming');
  }

  /** Stops pulling and waits for in-flight trajectories to be published and acked (the acks flushed to the server). */
  async stop(): Promise<void> {
    const h = this.#handle;
    if (!h) return;
    await h.stop();
    this.#handle = null;
    this.#log.info({ ...this.stats }, 'judge stopped');
  }

  async #handle_(d: Delivery<Trajectory>): Promise<void> {
    const traj = d.value;
    const id = trajectoryIdOf(traj);
    const subject = this.#subjectFor(traj, id);
    if ('error' in subject) {
      this.stats.terminated++;
      this.#log.error({ trajectory: id, seq: d.seq, err: subject.error }, 'trajectory cannot be scored; dead-lettered');
      await d.term(subject.error);
      return;
    }
    // Made on its first line only: at warn, a trajectory judged as expected writes none.
    const log = lazyChild(this.#log, { trajectory: id, run: traj.request?.runId ?? '' });
    if (this.#published.has(id)) {
      this.#duplicate(log, d, 'already published');
      this.#ack(log, d);
      return;
    }
    if (this.#inFlight.has(id)) {
      // Another delivery of the same id is being judged right now: come back when it is done.
      d.nak(1000);
      return;
    }
    this.#inFlight.add(id);
    try {
      const t0 = performance.now();
      const outcome = await this.#judge(traj, log);
      this.#metrics.latency.observe((performance.now() - t0) / 1000);
      const scored = toScored(traj, outcome, this.#now());
      const duplicate = await this.#publish(log, d, subject.subject, scored, id);
      if (duplicate === null) return; // terminated as unpublishable
      this.#published.add(id);
      if (duplicate) {
        this.#duplicate(log, d, 'stream already had it');
      } else {
        this.stats.published++;
        this.#count(outcome);
        log.info(
          outcome.kind === 'scored'
            ? { reward: outcome.verdict.reward, source: verdictSourceName(outcome.verdict.source), deliveries: d.deliveryCount }
            : { excluded: outcome.reason, detail: outcome.detail ?? '', deliveries: d.deliveryCount },
          'trajectory judged',
        );
      }
      this.#ack(log, d);
    } finally {
      this.#inFlight.delete(id);
    }
  }

  #subjectFor(traj: Trajectory, id: string): { subject: string } | { error: string } {
    if (id === '') return { error: 'trajectory has no trajectory_id' };
    let runId = traj.request?.runId ?? '';
    try {
      if (runId === '') runId = parseTrajectoryId(id).runId;
      return { subject: scoredSubject(runId) };
    } catch (e) {
      return { error: `trajectory ${JSON.stringify(id)} has no usable run id: ${(e as Error).message}` };
    }
  }

  async #judge(traj: Trajectory, log: Logger): Promise<JudgeOutcome> {
    try {
      return await judgeTrajectory(traj, {
        verifiers: this.#verifiers,
        judgeVersion: this.#judgeVersion,
        timeoutMs: this.#timeoutMs,
        sources: this.#sources,
        ...(this.#shadow !== undefined ? { shadow: this.#shadow } : {}),
      });
    } catch (e) {
      // A bug in the judge is an infrastructure outcome like any other, never a reward.
      log.error({ err: (e as Error)?.stack ?? String(e) }, 'judge pipeline crashed');
      return { kind: 'excluded', reason: ExcludedReason.InternalError, detail: (e as Error)?.message ?? String(e) };
    }
  }

  /**
   * Publishes with msgId = trajectory id. Returns the stream's duplicate flag, or null when the
   * message was dead-lettered. Transient failures throw, so the bus naks with backoff.
   */
  async #publish(log: Logger, d: Delivery<Trajectory>, subject: string, scored: ScoredTrajectory, id: string): Promise<boolean | null> {
    try {
      // The trajectory goes out as the bytes it came in (scored.trajectory is their decoding): not encoded again.
      return (await this.#bus.publishBytes(subject, encodeScoredWith(scored, d.data), { msgId: id })).duplicate;
    } catch (e) {
      if (!isBusError(e, BusErrorCode.PayloadTooLarge)) {
        this.stats.publishFailures++;
        this.#metrics.publishFailures.inc();
        log.warn({ err: (e as Error).message, code: (e as { code?: string }).code, deliveries: d.deliveryCount }, 'publish of scored trajectory failed; will be redelivered');
        throw e;
      }
    }
    // The verdict adds bytes to a trajectory that was just under max_payload: drop the final
    // screenshot (the learner does not need it) rather than lose the trajectory.
    const slim = clone(ScoredTrajectorySchema, scored);
    if (slim.trajectory) slim.trajectory.finalScreenshot = new Uint8Array(0);
    try {
      const r = await this.#bus.publish(subject, ScoredTrajectorySchema, slim, { msgId: id });
      log.warn({ droppedScreenshotBytes: scored.trajectory?.finalScreenshot.length ?? 0 }, 'scored trajectory over max_payload; published without its final screenshot');
      return r.duplicate;
    } catch (e) {
      if (!isBusError(e, BusErrorCode.PayloadTooLarge)) {
        this.stats.publishFailures++;
        this.#metrics.publishFailures.inc();
        throw e;
      }
      this.stats.terminated++;
      log.error({ err: (e as Error).message }, 'scored trajectory too large even without screenshot; dead-lettered');
      await d.term(`scored trajectory exceeds max_payload: ${(e as Error).message}`);
      return null;
    }
  }

  #duplicate(log: Logger, d: Delivery<Trajectory>, why: string): void {
    this.stats.duplicates++;
    this.#metrics.duplicates.inc();
    log.info({ deliveries: d.deliveryCount, seq: d.seq, why }, 'duplicate trajectory dropped');
  }

  /**
   * Acks (the scored trajectory is already stored) without waiting for the server's confirmation
   * (the consumer's confirmAcks is off; its stop() flushes the acks sent): an ack lost on the way
   * only brings the trajectory back, and the redelivery is recognised as a duplicate.
   */
  #ack(log: Logger, d: Delivery<Trajectory>): void {
    d.ack().catch((e: unknown) => {
      log.warn({ err: (e as Error).message }, 'ack not sent; a redelivery will be deduplicated');
    });
  }

  #count(outcome: JudgeOutcome): void {
    if (outcome.kind === 'excluded') {
      this.#metrics.trajectories.inc({ outcome: 'excluded', source: 'none' });
      this.#metrics.excluded.inc({ reason: outcome.reason });
      return;
    }
    const v = outcome.verdict;
    this.#metrics.trajectories.inc({ outcome: v.success ? 'success' : 'failure', source: verdictSourceName(v.source) });
    if (outcome.shadowUnavailable !== undefined) this.#metrics.shadowUnavailable.inc({ reason: outcome.shadowUnavailable });
    if (outcome.shadow !== undefined) {
      const label = (b: boolean): string => (b ? 'success' : 'failure');
      this.#metrics.shadowPairs.inc({ model: label(outcome.shadow.success), verifier: label(v.success) });
      const f = calibrationFigures(addPair(this.stats.shadow, outcome.shadow.success, v.success));
      for (const figure of ['agreement', 'precision', 'recall', 'f1'] as const) this.#metrics.shadowCalibration.set({ figure }, f[figure]);
    }
  }
}
