// The update and its publication, through the trainer contract (docs/trainer.md): the round's
// kept groups become one update request (train-batch.ts) handed to the trainer OWRL_TRAINER
// picks — the built-in pointer trainer in this process, or any owrl.v1.Trainer over gRPC — and
// the version it answers (URI, sha256, kind) is what the weights pointer announces to actors.
// The pointer only moves forward: a version at or below what KV already holds for this run is
// never written over it (after a restart the last checkpointed version is re-announced only when
// the pointer lags it).
//
// In process, `update` trains at once (the learner checkpoints the model right after it).
// A remote update cannot finish inside the synchronous `update`, so it is written ahead: the
// request is stored under the trainer state folder before the learner checkpoints, and
// `publish(version)` sends it (the contract makes a repeat idempotent), stores the answer's
// artifact, then moves the pointer. A learner killed between its checkpoint and the answer
// resends the stored request on restart; nothing it checkpointed as consumed goes untrained.
// `train` is the awaited form of the same step (request sent, answer stored, before it
// returns), for a loop that can wait on the update.
import fs from 'node:fs';
import path from 'node:path';
import { fromBinary, make, PolicyArtifactSchema, toBinary, TrainChunkSchema, TrainHyperparamsSchema, type PolicyArtifact, type TrainerInfo, type TrainHyperparams, type TrainResult } from '@owrl/proto';
import type { WeightsPointer } from '@owrl/bus';
import { exportOnnx, POLICY_KIND, type PointerModel } from '@owrl/policy';
import { InProcessPointerTrainer } from '@owrl/pointer-trainer';
import type { EpochStats, GrpoTrainer, PolicyTrainer, UpdateStats } from '@owrl/rl';
import type { Logger } from '@owrl/telemetry';
import type { ArtifactServer } from './artifact-server.js';
import type { CrashPoints } from './crash-point.js';
import { FatalRunError, withRetry, type RetryOptions } from './failure-policy.js';
import type { GroupState } from './round-ledger.js';
import { buildTrainBatch, type TrainBatch } from './train-batch.js';

/** A trainer in another process, as the learner's main wires it (OWRL_TRAINER=host:port). */
export interface RemoteTrainerBinding {
  trainer: PolicyTrainer;
  /** What the trainer said at start-up (GetTrainerInfo). */
  info: TrainerInfo;
  /** Folder of written-ahead requests and answered artifacts (kept across restarts). */
  stateDir: string;
  /** Hyper-parameters sent with every update. */
  hyper: TrainHyperparams;
}

export interface PolicyPublisherDeps {
  runId: string;
  model: PointerModel;
  trainer: GrpoTrainer;
  artifacts: ArtifactServer;
  weights: WeightsPointer;
  crash: CrashPoints;
  logger: Logger;
  retry: RetryOptions;
  /** A trainer in another process (OWRL_TRAINER=host:port); absent: the built-in trainer in process. */
  remote?: RemoteTrainerBinding;
}

/** Update health as the contract reports it (no trust-region fields: the step was the trainer's). */
function epochsOf(r: TrainResult): EpochStats[] {
  return r.epochs.map((e) => ({
    epoch: e.epoch,
    loss: e.loss,
    clipFraction: e.clipFraction,
    approxKl: e.approxKl,
    approxKlAfter: e.approxKl,
    gradNorm: e.gradNorm,
    meanRatio: e.meanRatio,
    learningRate: e.learningRate,
    stepScale: 1,
    backtracks: 0,
    actions: Number(e.actions),
  }));
}

export class PolicyPublisher {
  private readonly remote: RemoteTrainerBinding | undefined;
  private readonly inProcess: InProcessPointerTrainer;
  /** Artifacts the trainer answered, by version (remote ones are also on disk). */
  private readonly produced = new Map<number, PolicyArtifact>();
  /** Newest version published or produced: the base of the next update. */
  private version = 0;

  constructor(private readonly d: PolicyPublisherDeps) {
    this.remote = d.remote;
    if (this.remote) fs.mkdirSync(this.remote.stateDir, { recursive: true });
    this.inProcess = new InProcessPointerTrainer({
      trainer: d.trainer,
      store: (v, bytes) => d.artifacts.put(Number(v), bytes),
    });
  }

  /** Where the trainer's answers go: 'inprocess' or the remote trainer's name. */
  get trainerName(): string {
    return this.remote ? this.remote.info.name : 'inprocess';
  }

  private batch(kept: GroupState[], base: number): TrainBatch {
    // in process, the learner's GrpoTrainer carries the hyper-parameters itself
    const b = buildTrainBatch(this.d.runId, kept, BigInt(base), this.remote?.hyper ?? make(TrainHyperparamsSchema, {}));
    if (b.skippedSteps > 0) this.d.logger.warn({ skippedSteps: b.skippedSteps, steps: b.steps }, 'steps without a usable trace (no token ids or log-probs) left out of the update');
    return b;
  }

  private stats(b: TrainBatch, epochs: EpochStats[]): UpdateStats {
    const samples = b.groups.reduce((n, g) => n + g.samples.length, 0);
    return {
      groups: b.groups.length,
      fates: { kept: b.groups.length, dropped_all_zero: 0, dropped_all_one: 0, dropped_all_equal: 0 },
      trajectories: samples,
      actions: b.steps,
      meanReward: b.meanReward,
      updated: true,
      epochs,
    };
  }

  /**
   * The update on the kept groups (fate and advantages already decided by the ledger), from the
   * newest version to the next. In process it is done when this returns; with a remote trainer the
   * request is written ahead and sent by `publish` of the next version (epochs then stay empty).
   */
  update(kept: GroupState[], baseVersion: number = this.version): UpdateStats {
    const b = this.batch(kept, baseVersion);
    if (this.remote) {
      this.writeAhead(b);
      this.version = baseVersion + 1;
      return this.stats(b, []);
    }
    this.inProcess.setVersion(BigInt(baseVersion));
    const r = this.inProcess.trainSync(b.header, b.groups);
    this.accept(r);
    return this.stats(b, this.inProcess.lastEpochs);
  }

  /** The update, awaited: the trainer has answered and its version is stored when this resolves. */
  async train(kept: GroupState[], baseVersion: number): Promise<UpdateStats> {
    if (!this.remote) return this.update(kept, baseVersion);
    const b = this.batch(kept, baseVersion);
    this.writeAhead(b);
    const r = await this.send(b);
    return this.stats(b, epochsOf(r));
  }

  /** Trains what was written ahead for `version` (if anything) and moves the pointer to it (never backwards). */
  async publish(version: number): Promise<void> {
    const { weights, logger, runId } = this.d;
    if (this.remote) await this.sendPending(version);
    const current = await withRetry('read the weights pointer', () => weights.get(), this.d.retry);
    this.version = Math.max(this.version, version);
    if (current && current.runId === runId && Number(current.version) >= version) {
      logger.info({ policyVersion: version, pointer: Number(current.version) }, 'weights pointer already at or past this version: not moved');
      return;
    }
    const artifact = this.artifactOf(version);
    this.d.crash.hit('publishing');
    await withRetry('publish the weights pointer', () => weights.put(artifact), this.d.retry);
    logger.info({ policyVersion: version, uri: artifact.uri, kind: artifact.kind, bytes: Number(artifact.bytes), trainer: this.trainerName }, 'policy published');
  }

  /** The artifact of `version`: what the trainer answered, else (version 0, a resumed in-process run) this model or the served base. */
  private artifactOf(version: number): PolicyArtifact {
    const known = this.produced.get(version) ?? this.readRecord(version);
    if (known) return make(PolicyArtifactSchema, { ...known, runId: this.d.runId });
    if (this.remote && this.remote.info.artifactKind !== POLICY_KIND) {
      if (version !== 0) throw new FatalRunError('TRAINER_ARTIFACT_MISSING', `no artifact of version ${version} from trainer ${this.remote.info.name}: its answer is not under ${this.remote.stateDir}`);
      // Version 0 of a language model is the model the endpoint serves as configured: no uri, nothing to load.
      return make(PolicyArtifactSchema, { version: 0n, kind: this.remote.info.artifactKind, runId: this.d.runId, createdAtMs: BigInt(Date.now()), temperature: this.d.model.temperature });
    }
    const art = this.d.artifacts.put(version, exportOnnx(this.d.model));
    return make(PolicyArtifactSchema, {
      version: BigInt(version),
      uri: art.uri,
      sha256: art.sha256,
      bytes: BigInt(art.bytes),
      kind: POLICY_KIND,
      runId: this.d.runId,
      createdAtMs: BigInt(Date.now()),
      temperature: this.d.model.temperature,
    });
  }

  private accept(r: TrainResult): void {
    const a = r.artifact;
    if (!a) throw new FatalRunError('TRAINER_BAD_RESULT', `the trainer's answer to ${r.batchId} carries no artifact`);
    this.produced.set(Number(r.version), a);
    this.version = Math.max(this.version, Number(r.version));
    if (this.remote) {
      const file = this.recordFile(Number(r.version));
      fs.writeFileSync(`${file}.tmp`, toBinary(PolicyArtifactSchema, a));
      fs.renameSync(`${file}.tmp`, file);
      fs.rmSync(this.batchFile(Number(r.version)), { force: true });
    }
    this.d.logger.info({ policyVersion: Number(r.version), uri: a.uri, sha256: a.sha256, kind: a.kind, replayed: r.replayed, trainS: r.trainS, samples: Number(r.samples), actions: Number(r.actions) }, 'trainer answered a new version');
  }

  private batchFile(target: number): string {
    return path.join(this.remote?.stateDir ?? '', `batch-v${target}.pb`);
  }

  private recordFile(version: number): string {
    return path.join(this.remote?.stateDir ?? '', `artifact-v${version}.pb`);
  }

  private readRecord(version: number): PolicyArtifact | undefined {
    if (!this.remote) return undefined;
    const f = this.recordFile(version);
    return fs.existsSync(f) ? fromBinary(PolicyArtifactSchema, new Uint8Array(fs.readFileSync(f))) : undefined;
  }

  /** Stores the request (length-prefixed TrainChunks: the header, then the groups) before the learner checkpoints. */
  private writeAhead(b: TrainBatch): void {
    const file = this.batchFile(Number(b.header.targetVersion));
    const chunks = [make(TrainChunkSchema, { kind: { case: 'header', value: b.header } }), ...b.groups.map((g) => make(TrainChunkSchema, { kind: { case: 'group', value: g } }))];
    const parts: Buffer[] = [];
    for (const c of chunks) {
      const bytes = toBinary(TrainChunkSchema, c);
      const len = Buffer.alloc(4);
      len.writeUInt32BE(bytes.length);
      parts.push(len, Buffer.from(bytes));
    }
    const fd = fs.openSync(`${file}.tmp`, 'w');
    try {
      fs.writeSync(fd, Buffer.concat(parts));
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(`${file}.tmp`, file);
  }

  private readAhead(target: number): TrainBatch | undefined {
    const file = this.batchFile(target);
    if (!fs.existsSync(file)) return undefined;
    const buf = fs.readFileSync(file);
    const b: TrainBatch = { header: undefined as never, groups: [], steps: 0, skippedSteps: 0, meanReward: 0 };
    for (let off = 0; off < buf.length; ) {
      const n = buf.readUInt32BE(off);
      const c = fromBinary(TrainChunkSchema, new Uint8Array(buf.subarray(off + 4, off + 4 + n)));
      off += 4 + n;
      if (c.kind.case === 'header') b.header = c.kind.value;
      else if (c.kind.case === 'group') b.groups.push(c.kind.value);
    }
    if (!b.header) throw new FatalRunError('TRAINER_BATCH_CORRUPT', `${file} holds no update header`);
    return b;
  }

  private async sendPending(version: number): Promise<void> {
    if (this.produced.has(version) || this.readRecord(version)) return;
    const b = this.readAhead(version);
    if (b) await this.send(b);
  }

  private async send(b: TrainBatch): Promise<TrainResult> {
    const remote = this.remote as RemoteTrainerBinding;
    let r: TrainResult;
    try {
      r = await remote.trainer.train(b.header, b.groups);
    } catch (e) {
      throw new FatalRunError('TRAINER_FAILED', `update ${b.header.batchId} (version ${b.header.baseVersion} → ${b.header.targetVersion}) failed at trainer ${remote.info.name}: ${(e as Error).message}`, { cause: e });
    }
    this.accept(r);
    return r;
  }
}
