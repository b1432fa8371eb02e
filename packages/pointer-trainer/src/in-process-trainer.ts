// The built-in pointer trainer in the learner's own process, behind the trainer contract
// (PolicyTrainer): it trains the learner's model with its GrpoTrainer (clipped objective, sparse
// Adam, KL trust region) on the advantages the TrainGroups carry, and answers with the artifact
// the `store` callback wrote (the learner's artifact server). The model and optimizer stay the
// learner's: they are checkpointed with the learner, so this trainer keeps no versions of its
// own and restores nothing (an update must start from the version it last produced).
// With `offThread`, `train` runs the update in a worker thread (UpdateThread) so the caller's
// event loop goes on meanwhile; `trainSync` is the same update on the caller's thread.
import { exportOnnx } from '@owrl/policy';
import { make, PolicyArtifactSchema, TrainerInfoSchema, TrainResultSchema, type TrainerInfo, type TrainGroup, type TrainHeader, type TrainResult } from '@owrl/proto';
import { epochStatMessage, type EpochStats, type GrpoTrainer, type PolicyTrainer } from '@owrl/rl';
import { readStoredRequest, TrainerError, TrainerErrorCode, validateTrainRequest, writeStoredRequestAsync } from '@owrl/trainer-rpc';
import { groupIndexOf, samplesOf } from './convert.js';
import { POINTER_ARTIFACT_KIND } from './pointer-policy-trainer.js';
import { UpdateThread } from './update-thread.js';

export const IN_PROCESS_TRAINER_NAME = 'owrl-pointer-inprocess/0.1';

/** Where a stored artifact is. */
export interface StoredArtifactRef {
  uri: string;
  sha256: string;
  bytes: number;
}

export interface InProcessPointerTrainerOptions {
  /** The learner's trainer (its model and optimizer are updated in place). */
  trainer: GrpoTrainer;
  /** Writes the ONNX bytes of `version` and says where they are. */
  store: (version: bigint, bytes: Uint8Array) => StoredArtifactRef;
  /** Version the model holds now (0 at a fresh start, the checkpointed one on resume). */
  version?: bigint;
  now?: () => number;
  /** Train in a worker thread (`train`); default false. */
  offThread?: boolean;
}

export class InProcessPointerTrainer implements PolicyTrainer {
  private version: bigint;
  /** Full update health of the last update (trust-region fields included). */
  lastEpochs: EpochStats[] = [];
  private readonly thread: UpdateThread | null;

  constructor(private readonly opts: InProcessPointerTrainerOptions) {
    this.version = opts.version ?? 0n;
    this.thread = opts.offThread ? new UpdateThread() : null;
  }

  /** Version the model holds. */
  get heldVersion(): bigint {
    return this.version;
  }

  /** Tells the trainer which version the model holds (after the learner restored a checkpoint). */
  setVersion(v: bigint): void {
    this.version = v;
  }

  info(): Promise<TrainerInfo> {
    return Promise.resolve(
      make(TrainerInfoSchema, {
        name: IN_PROCESS_TRAINER_NAME,
        traceKinds: ['pointer'],
        artifactKind: POINTER_ARTIFACT_KIND,
        latestVersion: this.version,
        restorableVersions: [this.version],
        maxGroupBytes: 0n,
      }),
    );
  }

  async train(header: TrainHeader, groups: Iterable<TrainGroup> | AsyncIterable<TrainGroup>): Promise<TrainResult> {
    const list: TrainGroup[] = [];
    for await (const g of groups) list.push(g);
    if (!this.thread) return this.trainSync(header, list);
    const t0 = performance.now();
    // Traces still encoded are decoded and checked in the update thread.
    this.check(header, list, true);
    const { actions, epochs, onnx } = await this.thread.run(this.opts.trainer, list);
    return this.answer(header, actions, epochs, onnx, t0, list.reduce((n, g) => n + g.samples.length, 0));
  }

  /**
   * Stores the request in `file` (written ahead: atomically, fsynced) for `trainStored`, written
   * and fsynced in the thread pool; the traces still encoded are copied as they are (the update
   * decodes and checks them when it trains).
   * @throws TrainerError TRAINER_INVALID_REQUEST, TRAINER_UNKNOWN_BASE_VERSION as `train`.
   */
  async storeAhead(file: string, header: TrainHeader, groups: readonly TrainGroup[]): Promise<void> {
    this.check(header, groups, this.thread !== null);
    await writeStoredRequestAsync(file, header, groups);
  }

  /**
   * Trains the request stored for `target` (storeAhead's, or after a restart the one in `file`)
   * from the version the model holds.
   * @throws TrainerError TRAINER_UNKNOWN_BASE_VERSION when the request's base is not that version;
   *   Error when no request is stored.
   */
  async trainStored(file: string, target: bigint): Promise<TrainResult> {
    const t0 = performance.now();
    if (target !== this.version + 1n) {
      throw new TrainerError(TrainerErrorCode.UnknownBaseVersion, `the stored update to version ${target} needs base ${target - 1n}; the in-process model holds ${this.version}`);
    }
    if (!this.thread) {
      const req = readStoredRequest(file);
      if (!req) throw new Error(`no stored request for version ${target}: ${file} is missing`);
      return this.trainSync(req.header, req.groups);
    }
    const out = await this.thread.runStored(this.opts.trainer, file, Number(target));
    if (!out.header) throw new Error('the update thread answered a stored update without its header');
    return this.answer(out.header, out.actions, out.epochs, out.onnx, t0, out.samples);
  }

  private check(header: TrainHeader, groups: readonly TrainGroup[], deferEncodedTraces = false): void {
    validateTrainRequest(header, groups, ['pointer'], { deferEncodedTraces });
    if (header.baseVersion !== this.version) {
      throw new TrainerError(TrainerErrorCode.UnknownBaseVersion, `base_version ${header.baseVersion} is not the version the in-process model holds (${this.version})`);
    }
  }

  /**
   * One update, synchronously.
   * @throws TrainerError TRAINER_INVALID_REQUEST (a malformed request), TRAINER_UNKNOWN_BASE_VERSION
   *   (the base is not the version the model holds).
   */
  trainSync(header: TrainHeader, groups: readonly TrainGroup[]): TrainResult {
    const t0 = performance.now();
    this.check(header, groups);
    const { actions, epochs } = this.opts.trainer.updateSamples(samplesOf(groups), groupIndexOf(groups));
    return this.answer(header, actions, epochs, exportOnnx(this.opts.trainer.model), t0, groups.reduce((n, g) => n + g.samples.length, 0));
  }

  /** Stores the trained version's artifact and answers the update. */
  private answer(header: TrainHeader, actions: number, epochs: EpochStats[], onnx: Uint8Array, t0: number, samples: number): TrainResult {
    this.lastEpochs = epochs;
    const target = header.targetVersion;
    const model = this.opts.trainer.model;
    const stored = this.opts.store(target, onnx);
    this.version = target;
    return make(TrainResultSchema, {
      batchId: header.batchId,
      version: target,
      artifact: make(PolicyArtifactSchema, {
        version: target,
        uri: stored.uri,
        sha256: stored.sha256,
        bytes: BigInt(stored.bytes),
        kind: POINTER_ARTIFACT_KIND,
        runId: header.runId,
        createdAtMs: BigInt((this.opts.now ?? Date.now)()),
        temperature: model.temperature,
      }),
      epochs: epochs.map(epochStatMessage),
      replayed: false,
      trainS: (performance.now() - t0) / 1000,
      samples: BigInt(samples),
      actions: BigInt(actions),
    });
  }

  close(): Promise<void> {
    return this.thread?.close() ?? Promise.resolve();
  }
}
