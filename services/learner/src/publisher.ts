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
// returns), for a loop that can wait on the update. In process it runs in a worker thread.
//
// Async mode overlaps the update with the next round, with either trainer: `writeAhead` stores
// the request (in process under OWRL's updates folder) before the learner checkpoints it as
// pending, `trainAhead` trains it (again, after a restart: from the checkpointed weights, the
// same update), and `settleAhead` drops the request once the trained version is checkpointed.
import fs from 'node:fs';
import path from 'node:path';
import { make, PolicyArtifactSchema, prefetchSteps, toBinary, TrainHyperparamsSchema, type OffPolicyStat, type PolicyArtifact, type TrainerInfo, type TrainHyperparams, type TrainResult } from '@owrl/proto';
import type { WeightsPointer } from '@owrl/bus';
import { exportOnnx, POLICY_KIND, type PointerModel } from '@owrl/policy';
import { InProcessPointerTrainer } from '@owrl/pointer-trainer';
import type { GrpoTrainer, PolicyTrainer, UpdateStats } from '@owrl/rl';
import type { Logger } from '@owrl/core';
import type { ArtifactServer } from './artifact-server.js';
import type { CrashPoints } from './crash-point.js';
import { FatalRunCode, FatalRunError } from './errors.js';
import { withRetry, type RetryOptions } from './failure-policy.js';
import type { GroupState } from './round-group.js';
import { referencedImages, type ShotKeeper } from './shot-keeper.js';
import { readArtifactRecord, readStoredBatch, storeBatch, storeBatchAsync } from './stored-update.js';
import { buildTrainBatch, type TrainBatch } from './train-batch.js';
import { epochsOf, figuresOf, replayedStats, statsOf, type BatchFigures } from './update-stats.js';

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
  /** Folder of the in-process trainer's written-ahead requests (kept across restarts). */
  updatesDir: string;
  /**
   * Keeps the screenshots a remote update references until it is committed, served under
   * `imageUrl` (the request's image_url); absent: requests name no image_url.
   */
  shots?: { keeper: ShotKeeper; imageUrl: string };
}

/** What became of an update's samples besides training: for the round summary and the run counters. */
export interface UpdateOutcome {
  /** Kept samples not sent (no step left to train). */
  samplesNotSent: number;
  /** Images the request references that the learner could not keep (gone from the store). */
  imagesMissing: number;
  /** Samples the trainer refused (an image it could not fetch). */
  samplesRefused: number;
  /** Engine/trainer log-prob parity and the off-policy correction, as a token trainer reported them. */
  offPolicy?: OffPolicyStat;
}

export class PolicyPublisher {
  private readonly remote: RemoteTrainerBinding | undefined;
  private readonly inProcess: InProcessPointerTrainer;
  /** Artifacts the trainer answered, by version (remote ones are also on disk). */
  private readonly produced = new Map<number, PolicyArtifact>();
  /** Newest version published or produced: the base of the next update. */
  private version = 0;
  /**
   * The update last written ahead: its target version and figures, and with a remote trainer the
   * request itself (trainAhead sends it instead of reading it back). The in-process trainer reads
   * the stored file, so the batch is not kept: it holds the traces of every kept result (read back
   * into the prefetch slabs: 235 MB at 8000 slots, kept alive until the update was committed).
   */
  private ahead: { target: number; figures: BatchFigures; batch: TrainBatch | null } | null = null;
  /** Per target version, what became of the update's samples (taken by the learner when it commits). */
  private readonly outcomes = new Map<number, UpdateOutcome>();

  constructor(private readonly d: PolicyPublisherDeps) {
    this.remote = d.remote;
    fs.mkdirSync(this.aheadDir, { recursive: true });
    this.inProcess = new InProcessPointerTrainer({
      trainer: d.trainer,
      store: (v, bytes) => d.artifacts.put(Number(v), bytes),
      // `train` (the awaited update) runs in a worker thread: the loop goes on ingesting meanwhile.
      offThread: true,
    });
  }

  /** Where written-ahead requests are kept. */
  private get aheadDir(): string {
    return this.remote?.stateDir ?? this.d.updatesDir;
  }

  /** Where the trainer's answers go: 'inprocess' or the remote trainer's name. */
  get trainerName(): string {
    return this.remote ? this.remote.info.name : 'inprocess';
  }

  private batch(kept: GroupState[], base: number): TrainBatch {
    // in process, the learner's GrpoTrainer carries the hyper-parameters itself
    const b = buildTrainBatch(this.d.runId, kept, BigInt(base), this.remote?.hyper ?? make(TrainHyperparamsSchema, {}));
    this.outcomes.set(base + 1, { samplesNotSent: b.samplesNotSent, imagesMissing: 0, samplesRefused: 0 });
    if (b.skippedSteps > 0) this.d.logger.warn({ skippedSteps: b.skippedSteps, steps: b.steps }, 'steps without a usable trace (no token ids or log-probs) left out of the update');
    if (b.samplesNotSent > 0) this.d.logger.info({ samplesNotSent: b.samplesNotSent, maskedSteps: b.maskedSteps }, 'kept samples with no step left to train are not sent');
    if (b.unreadable.length > 0) {
      this.d.logger.error(
        { unreadable: b.unreadable.length, samples: figuresOf(b).samples, first: b.unreadable.slice(0, 5) },
        "results whose steps could not be read back trained nothing in this update (their group's other samples did)",
      );
    }
    return b;
  }

  /**
   * The kept results' steps that wait elsewhere (OWRL_HELD_STEPS), read back without blocking the
   * loop, all at once, before the batch is built: the batch reads every one of them; read one by
   * one on the loop from disk they stopped the learner for seconds per update at 8000 slots (3600
   * reads, the disk's pages reclaimed in the minute they waited), and from the stream they can
   * only be read ahead. A failed read is left to the batch: from disk it reads again, from the
   * stream it names the result and the error (unreadable) and trains the rest.
   */
  private async prefetch(kept: GroupState[]): Promise<void> {
    const held = kept.flatMap((g) => g.samples.flatMap((s) => (s.scored?.trajectory ? [s.scored.trajectory] : [])));
    await prefetchSteps(held).catch((e: unknown) => this.d.logger.warn({ err: e }, 'reading held results back ahead of the update failed for some; the batch names them'));
  }

  /**
   * The update on the kept groups (fate and advantages already decided by the ledger), from the
   * newest version to the next. In process it is done when this returns; with a remote trainer the
   * request is written ahead and sent by `publish` of the next version (epochs then stay empty).
   */
  update(kept: GroupState[], baseVersion: number = this.version): UpdateStats {
    const b = this.batch(kept, baseVersion);
    if (this.remote) {
      this.store(b);
      this.version = baseVersion + 1;
      return statsOf(figuresOf(b), []);
    }
    this.inProcess.setVersion(BigInt(baseVersion));
    const r = this.inProcess.trainSync(b.header, b.groups);
    this.accept(r);
    return statsOf(figuresOf(b), this.inProcess.lastEpochs);
  }

  /** The update, awaited: the trainer has answered and its version is stored when this resolves. */
  async train(kept: GroupState[], baseVersion: number): Promise<UpdateStats> {
    await this.prefetch(kept);
    const b = this.batch(kept, baseVersion);
    if (!this.remote) return this.trainInProcess(b);
    await this.keepImages(b);
    await this.storeAsync(b);
    const r = await this.send(b);
    return statsOf(figuresOf(b), epochsOf(r));
  }

  private async trainInProcess(b: TrainBatch): Promise<UpdateStats> {
    // (the awaited update of a sync round, in the update thread)
    this.inProcess.setVersion(b.header.baseVersion);
    const r = await this.inProcess.train(b.header, b.groups);
    this.accept(r);
    return statsOf(figuresOf(b), this.inProcess.lastEpochs);
  }

  /**
   * Stores the update from `baseVersion` over `kept` before the learner checkpoints it as pending
   * (trainAhead trains it), written and fsynced in the thread pool with its traces copied as the
   * held results keep them.
   */
  async writeAhead(kept: GroupState[], baseVersion: number): Promise<void> {
    await this.prefetch(kept);
    const b = this.batch(kept, baseVersion);
    if (this.remote) {
      await this.keepImages(b);
      await this.storeAsync(b);
    } else await this.inProcess.storeAhead(this.batchFile(Number(b.header.targetVersion)), b.header, b.groups);
    this.ahead = { target: Number(b.header.targetVersion), figures: figuresOf(b), batch: this.remote ? b : null };
  }

  /**
   * Trains the written-ahead update that makes `target`: the one just stored, or after a restart
   * the stored request (in process from the restored weights; a remote trainer replays or answers
   * it again by its batch id).
   * @throws FatalRunError TRAINER_BATCH_MISSING when no request for `target` is stored.
   */
  async trainAhead(target: number): Promise<UpdateStats> {
    const held = this.ahead?.target === target ? this.ahead : null;
    if (!held && !fs.existsSync(this.batchFile(target))) {
      const known = this.produced.get(target) ?? this.readRecord(target);
      if (known) return replayedStats(0, 0, []);
      throw new FatalRunError(FatalRunCode.TrainerBatchMissing, `the update to version ${target} was checkpointed as written ahead, but ${this.batchFile(target)} is missing`);
    }
    if (this.remote) {
      const b = held?.batch ?? this.readAhead(target);
      if (!b) throw new FatalRunError(FatalRunCode.TrainerBatchMissing, `${this.batchFile(target)} is missing`);
      const r = await this.send(b);
      return statsOf(figuresOf(b), epochsOf(r));
    }
    this.inProcess.setVersion(BigInt(target - 1));
    const r = await this.inProcess.trainStored(this.batchFile(target), BigInt(target));
    this.accept(r);
    const epochs = this.inProcess.lastEpochs;
    if (held) return statsOf(held.figures, epochs);
    return replayedStats(Number(r.samples), Number(r.actions), epochs);
  }

  /**
   * The trained version `target` is checkpointed: its written-ahead request, and any older one a
   * crash left behind, are no longer needed.
   */
  settleAhead(target: number): void {
    if (this.ahead && this.ahead.target <= target) this.ahead = null;
    for (const f of fs.readdirSync(this.aheadDir)) {
      const m = /^batch-v(\d+)\.pb(\.tmp)?$/.exec(f);
      if (m && Number(m[1]) <= target) fs.rmSync(path.join(this.aheadDir, f), { force: true });
    }
  }

  /**
   * Before a remote request is stored: the images its token traces reference are kept until the
   * update is committed, and the request says where a trainer gets them (image_url) and how many
   * could not be kept (images_missing).
   */
  private async keepImages(b: TrainBatch): Promise<void> {
    const shots = this.d.shots;
    if (!shots) return;
    const shas = referencedImages(b.groups);
    if (shas.length === 0) return;
    const target = Number(b.header.targetVersion);
    const { missing } = await shots.keeper.keep(target, shas);
    b.header.imageUrl = shots.imageUrl;
    b.header.imagesMissing = missing.length;
    const o = this.outcomes.get(target);
    if (o) o.imagesMissing = missing.length;
    if (missing.length > 0) this.d.logger.warn({ target, images: shas.length, missing: missing.length, first: missing.slice(0, 3) }, 'screenshots the update references are gone from the store: their samples will be refused by the trainer');
  }

  /** What became of the samples of the update that made `target` (once; zeros when not known, e.g. replayed after a restart). */
  takeOutcome(target: number): UpdateOutcome {
    const o = this.outcomes.get(target) ?? { samplesNotSent: 0, imagesMissing: 0, samplesRefused: 0 };
    this.outcomes.delete(target);
    return o;
  }

  /** Ends the in-process update thread. */
  close(): Promise<void> {
    return this.inProcess.close();
  }

  /** Trains what was written ahead for `version` (if anything) and moves the pointer to it (never backwards). */
  async publish(version: number): Promise<void> {
    const { weights, logger, runId } = this.d;
    if (this.remote) await this.sendPending(version);
    // the trainer has answered every update up to this version: the images it kept can go
    this.d.shots?.keeper.release(version);
    const current = await withRetry('read the weights pointer', () => weights.get(), this.d.retry);
    this.version = Math.max(this.version, version);
    if (current && current.runId === runId && Number(current.version) >= version) {
      // The same version served from another address (a learner restarted on another artifact
      // port, e.g. `owrl train --resume` on the NATS it joined): actors could not fetch the old one.
      const again = Number(current.version) === version ? this.artifactOf(version) : null;
      if (again !== null && again.uri !== current.uri) {
        await withRetry('publish the weights pointer', () => weights.put(again), this.d.retry);
        logger.info({ policyVersion: version, uri: again.uri, was: current.uri }, 'weights pointer moved to where this learner serves the version');
        return;
      }
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
      if (version !== 0) throw new FatalRunError(FatalRunCode.TrainerArtifactMissing, `no artifact of version ${version} from trainer ${this.remote.info.name}: its answer is not under ${this.remote.stateDir}`);
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
    if (!a) throw new FatalRunError(FatalRunCode.TrainerBadResult, `the trainer's answer to ${r.batchId} carries no artifact`);
    this.produced.set(Number(r.version), a);
    this.version = Math.max(this.version, Number(r.version));
    const o = this.outcomes.get(Number(r.version));
    if (o) {
      o.samplesRefused = Number(r.samplesRefused);
      if (r.offPolicy) o.offPolicy = r.offPolicy;
    }
    const op = r.offPolicy;
    if (op) {
      this.d.logger.info(
        { policyVersion: Number(r.version), parityTokens: Number(op.parityTokens), logprobGapMaxAbs: op.logprobGapMaxAbs, logprobGapMeanAbs: op.logprobGapMeanAbs, ess: op.ess, truncatedTokens: Number(op.truncatedTokens), correction: op.correction, positiveLogprobGain: op.positiveLogprobGain },
        'off-policy health of the update (engine/trainer log-prob gap, effective sample size)',
      );
    }
    if (r.samplesRefused > 0n) this.d.logger.warn({ policyVersion: Number(r.version), samplesRefused: Number(r.samplesRefused) }, 'the trainer refused samples (an image it could not fetch); the rest trained');
    if (this.remote) {
      const file = this.recordFile(Number(r.version));
      fs.writeFileSync(`${file}.tmp`, toBinary(PolicyArtifactSchema, a));
      fs.renameSync(`${file}.tmp`, file);
      fs.rmSync(this.batchFile(Number(r.version)), { force: true });
    }
    this.d.logger.info({ policyVersion: Number(r.version), uri: a.uri, sha256: a.sha256, kind: a.kind, replayed: r.replayed, trainS: r.trainS, samples: Number(r.samples), actions: Number(r.actions) }, 'trainer answered a new version');
  }

  private batchFile(target: number): string {
    return path.join(this.aheadDir, `batch-v${target}.pb`);
  }

  private recordFile(version: number): string {
    return path.join(this.remote?.stateDir ?? '', `artifact-v${version}.pb`);
  }

  private readRecord(version: number): PolicyArtifact | undefined {
    return this.remote ? readArtifactRecord(this.recordFile(version)) : undefined;
  }

  /** Stores the request (trainer-rpc's stored request) before the learner checkpoints. */
  private store(b: TrainBatch): void {
    storeBatch(this.batchFile(Number(b.header.targetVersion)), b);
  }

  private storeAsync(b: TrainBatch): Promise<void> {
    return storeBatchAsync(this.batchFile(Number(b.header.targetVersion)), b);
  }

  private readAhead(target: number): TrainBatch | undefined {
    return readStoredBatch(this.batchFile(target));
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
      throw new FatalRunError(FatalRunCode.TrainerFailed, `update ${b.header.batchId} (version ${b.header.baseVersion} → ${b.header.targetVersion}) failed at trainer ${remote.info.name}: ${(e as Error).message}`, { cause: e });
    }
    this.accept(r);
    return r;
  }
}
