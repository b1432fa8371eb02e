// The built-in pointer trainer in the learner's own process, behind the trainer contract
// (PolicyTrainer): it trains the learner's model with its GrpoTrainer (clipped objective, sparse
// Adam, KL trust region) on the advantages the TrainGroups carry, and answers with the artifact
// the `store` callback wrote (the learner's artifact server). The model and optimizer stay the
// learner's: they are checkpointed with the learner, so this trainer keeps no versions of its
// own and restores nothing (an update must start from the version it last produced).
// `trainSync` is the same update without the promise, for callers that must finish the step
// before they go on (the learner checkpoints the model right after it).
import { exportOnnx } from '@owrl/policy';
import { make, PolicyArtifactSchema, TrainerInfoSchema, TrainResultSchema, type TrainerInfo, type TrainGroup, type TrainHeader, type TrainResult } from '@owrl/proto';
import { epochStatMessage, type EpochStats, type GrpoTrainer, type PolicyTrainer } from '@owrl/rl';
import { TrainerError, TrainerErrorCode, validateTrainRequest } from '@owrl/trainer-rpc';
import { samplesOf } from './convert.js';
import { POINTER_ARTIFACT_KIND } from './pointer-policy-trainer.js';

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
}

export class InProcessPointerTrainer implements PolicyTrainer {
  private version: bigint;
  /** Full update health of the last update (trust-region fields included). */
  lastEpochs: EpochStats[] = [];

  constructor(private readonly opts: InProcessPointerTrainerOptions) {
    this.version = opts.version ?? 0n;
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
    return this.trainSync(header, list);
  }

  /**
   * One update, synchronously.
   * @throws TrainerError TRAINER_INVALID_REQUEST (a malformed request), TRAINER_UNKNOWN_BASE_VERSION
   *   (the base is not the version the model holds).
   */
  trainSync(header: TrainHeader, groups: readonly TrainGroup[]): TrainResult {
    const t0 = performance.now();
    validateTrainRequest(header, groups, ['pointer']);
    if (header.baseVersion !== this.version) {
      throw new TrainerError(TrainerErrorCode.UnknownBaseVersion, `base_version ${header.baseVersion} is not the version the in-process model holds (${this.version})`);
    }
    const samples = samplesOf(groups);
    const { actions, epochs } = this.opts.trainer.updateSamples(samples);
    this.lastEpochs = epochs;
    const target = header.targetVersion;
    const model = this.opts.trainer.model;
    const stored = this.opts.store(target, exportOnnx(model));
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
      samples: BigInt(samples.length),
      actions: BigInt(actions),
    });
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
