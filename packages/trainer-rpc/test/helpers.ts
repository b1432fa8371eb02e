// Builders of update requests (token and pointer traces), and an in-process PolicyTrainer that
// records what it gets, keeps the contract's idempotency and base-version rules, and can be held
// at a gate to stand for a long update.
import { create, make, PolicyArtifactSchema, PolicyTraceSchema, PointerTraceSchema, TokenTraceSchema, TrainerInfoSchema, TrainGroupSchema, TrainHeaderSchema, TrainHyperparamsSchema, TrainResultSchema, TrainSampleSchema, TrainStepSchema, type TrainerInfo, type TrainGroup, type TrainHeader, type TrainResult } from '@owrl/proto';
import type { PolicyTrainer } from '@owrl/rl';
import { TrainerError, TrainerErrorCode } from '@owrl/trainer-rpc';

export function header(base: bigint, batch = `run-1/update-${base + 1n}`, over: { groups?: number; samples?: number; targetVersion?: bigint } = {}): TrainHeader {
  return make(TrainHeaderSchema, {
    runId: 'run-1',
    batchId: batch,
    baseVersion: base,
    targetVersion: base + 1n,
    hyper: create(TrainHyperparamsSchema, { ppoEpochs: 2, clipLow: 0.2, clipHigh: 0.28, learningRate: 1e-6, lossAgg: 'token_mean', temperature: 1 }),
    groups: 2,
    samples: 4,
    ...over,
  });
}

export function tokenStep(index: number, ids: number[], lp: number[]) {
  return create(TrainStepSchema, {
    index,
    trace: create(PolicyTraceSchema, {
      kind: { case: 'tokens', value: create(TokenTraceSchema, { tokenIds: ids, logprobs: lp, promptTokens: 100, promptTokenIds: [1, 2, 3], finishReason: 'tool_calls', model: 'owrl-v1' }) },
    }),
  });
}

export function pointerStep(index: number) {
  return create(TrainStepSchema, {
    index,
    trace: create(PolicyTraceSchema, {
      kind: { case: 'pointer', value: create(PointerTraceSchema, { numCandidates: 2, offsets: [0, 1, 3], featureIndex: [4, 9, 12], featureValue: [1, 1, 0.5], chosen: 1, logprob: -0.4, temperature: 1 }) },
    }),
  });
}

/** Two groups of two samples; advantages ±1, token traces of distinct lengths. */
export function tokenGroups(seed = 0): TrainGroup[] {
  return [0, 1].map((g) =>
    create(TrainGroupSchema, {
      taskId: `task-${g}`,
      round: 3n,
      group: g,
      samples: [0, 1].map((s) =>
        create(TrainSampleSchema, {
          trajectoryId: `run-1/3/${g}/${s}/0`,
          reward: s === 0 ? 1 : 0,
          advantage: s === 0 ? 1 : -1,
          policyVersion: 1n,
          steps: [tokenStep(0, [10 + seed, 11, 12 + g], [-0.5, -0.25, -0.125]), tokenStep(1, [20 + s], [-0.75])],
        }),
      ),
    }),
  );
}

export class RecordingTrainer implements PolicyTrainer {
  readonly calls: Array<{ header: TrainHeader; groups: TrainGroup[] }> = [];
  private readonly done = new Map<string, TrainResult>();
  latest = 0n;
  active = 0;
  maxActive = 0;
  gate: Promise<void> | undefined;
  failWith: Error | undefined;
  closed = false;

  info(): Promise<TrainerInfo> {
    return Promise.resolve(
      make(TrainerInfoSchema, {
        name: 'recording/1',
        traceKinds: ['pointer', 'tokens'],
        artifactKind: 'onnx-pointer',
        latestVersion: this.latest,
        restorableVersions: Array.from({ length: Number(this.latest) + 1 }, (_, i) => BigInt(i)),
      }),
    );
  }

  async train(h: TrainHeader, groups: Iterable<TrainGroup> | AsyncIterable<TrainGroup>): Promise<TrainResult> {
    this.active++;
    this.maxActive = Math.max(this.maxActive, this.active);
    try {
      const list: TrainGroup[] = [];
      for await (const g of groups) list.push(g);
      this.calls.push({ header: h, groups: list });
      if (this.gate) await this.gate;
      if (this.failWith) throw this.failWith;
      const key = `${h.batchId}@${h.baseVersion}`;
      const prior = this.done.get(key);
      if (prior) return create(TrainResultSchema, { ...prior, replayed: true });
      if (h.baseVersion > this.latest) throw new TrainerError(TrainerErrorCode.UnknownBaseVersion, `base_version ${h.baseVersion} is newer than the newest version ${this.latest}`);
      this.latest = h.targetVersion;
      const r = make(TrainResultSchema, {
        batchId: h.batchId,
        version: h.targetVersion,
        artifact: make(PolicyArtifactSchema, { version: h.targetVersion, uri: `file:///tmp/v${h.targetVersion}.onnx`, sha256: 'ab'.repeat(32), bytes: 10n, kind: 'onnx-pointer' }),
        samples: BigInt(list.reduce((n, g) => n + g.samples.length, 0)),
      });
      this.done.set(key, r);
      return r;
    } finally {
      this.active--;
    }
  }

  close(): Promise<void> {
    this.closed = true;
    return Promise.resolve();
  }
}
