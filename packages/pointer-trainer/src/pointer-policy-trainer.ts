// The built-in pointer trainer behind the trainer contract (docs/trainer.md): GRPO's clipped
// objective over the pointer model's exact gradients with sparse Adam, through GrpoTrainer (the
// in-process learner's update rule, trust region included), but on the advantages the learner
// sends (TrainSample.advantage) rather than ones recomputed here. Every version is stored on disk before the answer, in its own folder:
//   <dir>/v<N>/policy.onnx     the ONNX pointer model (the artifact; sha256 of this file)
//   <dir>/v<N>/optimizer.bin   Adam state after the update (restoring a base restores both)
//   <dir>/v<N>/result.pb       the TrainResult answered (replays answer it again)
// written to a temporary folder, fsynced and renamed, so a crash leaves whole versions only.
// Idempotent on (batch_id, base_version); an update from an older kept version restores it and
// drops the newer ones; the newest `keepVersions` versions are kept.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { DEFAULTS, silentLogger, type Logger } from '@owrl/core';
import { initialModel, PointerModel } from '@owrl/policy';
import {
  clone,
  fromBinary,
  make,
  PolicyArtifactSchema,
  toBinary,
  TrainerInfoSchema,
  TrainResultSchema,
  type EpochStat,
  type TrainerInfo,
  type TrainGroup,
  type TrainHeader,
  type TrainResult,
} from '@owrl/proto';
import { Adam, epochStatMessage, GrpoTrainer, type AdamOptions, type GrpoSample, type PolicyTrainer } from '@owrl/rl';
import { TrainerError, TrainerErrorCode, validateTrainRequest } from '@owrl/trainer-rpc';
import { groupIndexOf, samplesOf } from './convert.js';

export const POINTER_TRAINER_NAME = 'owrl-pointer/0.1';
export const POINTER_ARTIFACT_KIND = 'onnx-pointer';
const MODEL_FILE = 'policy.onnx';
const OPTIMIZER_FILE = 'optimizer.bin';
const RESULT_FILE = 'result.pb';

export interface PointerPolicyTrainerOptions {
  /** Folder the versions are stored under (created when missing). */
  dir: string;
  /** The model of version 0 when `dir` holds no version yet (default: all-zero weights of `dim`). */
  initial?: PointerModel;
  /** Feature dimension of the initial model; checked against stored versions when given. */
  dim?: number;
  /** Temperature of the initial model; default 1. */
  temperature?: number;
  /** Adam settings of the initial optimizer (learning rate default 0.05). */
  adam?: AdamOptions;
  /** Versions kept restorable, newest first; default 5, at least 2. */
  keepVersions?: number;
  /** Defaults of the hyper-parameters a request leaves at 0. */
  epochs?: number;
  clipLow?: number;
  clipHigh?: number;
  minibatches?: number;
  /** URI of a stored artifact file; default its file:// URL. */
  artifactUri?: (version: bigint, file: string) => string;
  logger?: Logger;
  now?: () => number;
}

interface Held {
  version: bigint;
  model: PointerModel;
  optimizer: Adam;
}

function fsyncFile(file: string, bytes: Uint8Array): void {
  const fd = fs.openSync(file, 'w');
  try {
    fs.writeSync(fd, bytes);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

function fsyncDir(dir: string): void {
  try {
    const fd = fs.openSync(dir, 'r');
    try {
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    // some filesystems refuse fsync on a directory; the files themselves are synced
  }
}

async function collect(groups: Iterable<TrainGroup> | AsyncIterable<TrainGroup>): Promise<TrainGroup[]> {
  const out: TrainGroup[] = [];
  for await (const g of groups) out.push(g);
  return out;
}

export class PointerPolicyTrainer implements PolicyTrainer {
  readonly dir: string;
  readonly keepVersions: number;
  private readonly log: Logger;
  private readonly now: () => number;
  private held: Held;
  private chain: Promise<unknown> = Promise.resolve();
  private closed = false;

  constructor(private readonly opts: PointerPolicyTrainerOptions) {
    this.dir = path.resolve(opts.dir);
    this.keepVersions = opts.keepVersions ?? 5;
    this.log = opts.logger ?? silentLogger;
    this.now = opts.now ?? Date.now;
    if (!Number.isInteger(this.keepVersions) || this.keepVersions < 2) {
      throw new TrainerError(TrainerErrorCode.InvalidRequest, `keepVersions is ${this.keepVersions}; keep at least 2 versions`);
    }
    fs.mkdirSync(this.dir, { recursive: true });
    for (const e of fs.readdirSync(this.dir)) if (e.endsWith('.tmp')) fs.rmSync(path.join(this.dir, e), { recursive: true, force: true });
    const versions = this.versions();
    if (versions.length === 0) {
      if (!opts.initial && opts.dim === undefined) throw new TrainerError(TrainerErrorCode.InvalidRequest, `${this.dir} holds no version yet: give the initial model or its dim`);
      const model = opts.initial?.clone() ?? initialModel({ dim: opts.dim ?? 0, temperature: opts.temperature ?? 1 });
      if (opts.dim !== undefined && model.dim !== opts.dim) throw new TrainerError(TrainerErrorCode.InvalidRequest, `initial model has dim ${model.dim}, options say ${opts.dim}`);
      this.held = { version: 0n, model, optimizer: new Adam(model.dim, opts.adam ?? {}) };
      this.writeVersion(0n, this.held.model, this.held.optimizer, undefined);
    } else {
      this.held = this.load(versions[versions.length - 1] ?? 0n);
      if (opts.dim !== undefined && this.held.model.dim !== opts.dim) {
        throw new TrainerError(TrainerErrorCode.Failed, `${this.dir} holds a model of dim ${this.held.model.dim}, options say ${opts.dim}`);
      }
    }
  }

  /** Versions held on disk, ascending. */
  versions(): bigint[] {
    return fs
      .readdirSync(this.dir)
      .filter((e) => /^v\d+$/.test(e))
      .map((e) => BigInt(e.slice(1)))
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  }

  /** The newest version's model (a copy). */
  model(): PointerModel {
    return this.held.model.clone();
  }

  /** The stored ONNX artifact bytes of `version`. */
  artifactBytes(version: bigint): Uint8Array {
    const f = path.join(this.versionDir(version), MODEL_FILE);
    if (!fs.existsSync(f)) throw new TrainerError(TrainerErrorCode.UnknownBaseVersion, `version ${version} is not stored in ${this.dir}`);
    return new Uint8Array(fs.readFileSync(f));
  }

  info(): Promise<TrainerInfo> {
    const versions = this.versions();
    return Promise.resolve(
      make(TrainerInfoSchema, {
        name: POINTER_TRAINER_NAME,
        traceKinds: ['pointer'],
        artifactKind: POINTER_ARTIFACT_KIND,
        latestVersion: versions[versions.length - 1] ?? 0n,
        restorableVersions: versions,
        maxGroupBytes: 0n,
      }),
    );
  }

  train(header: TrainHeader, groups: Iterable<TrainGroup> | AsyncIterable<TrainGroup>): Promise<TrainResult> {
    if (this.closed) return Promise.reject(new TrainerError(TrainerErrorCode.Failed, 'the pointer trainer is closed'));
    // one update at a time, in arrival order
    const p = this.chain.then(async () => this.trainNow(header, await collect(groups)));
    this.chain = p.catch(() => undefined);
    return p;
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.chain;
  }

  private versionDir(v: bigint): string {
    return path.join(this.dir, `v${v}`);
  }

  private load(version: bigint): Held {
    const d = this.versionDir(version);
    try {
      const model = PointerModel.fromOnnx(new Uint8Array(fs.readFileSync(path.join(d, MODEL_FILE))));
      const optimizer = Adam.fromBytes(new Uint8Array(fs.readFileSync(path.join(d, OPTIMIZER_FILE))));
      return { version, model, optimizer };
    } catch (cause) {
      throw new TrainerError(TrainerErrorCode.Failed, `cannot load version ${version} from ${d}: ${(cause as Error).message}`, { cause });
    }
  }

  private storedResult(version: bigint): TrainResult | undefined {
    const f = path.join(this.versionDir(version), RESULT_FILE);
    if (!fs.existsSync(f)) return undefined;
    return fromBinary(TrainResultSchema, new Uint8Array(fs.readFileSync(f)));
  }

  private writeVersion(version: bigint, model: PointerModel, optimizer: Adam, result: TrainResult | undefined): void {
    const final = this.versionDir(version);
    const tmp = `${final}.tmp`;
    fs.rmSync(tmp, { recursive: true, force: true });
    fs.mkdirSync(tmp);
    fsyncFile(path.join(tmp, MODEL_FILE), model.toOnnx());
    fsyncFile(path.join(tmp, OPTIMIZER_FILE), optimizer.toBytes());
    if (result) fsyncFile(path.join(tmp, RESULT_FILE), toBinary(TrainResultSchema, result));
    fsyncDir(tmp);
    fs.rmSync(final, { recursive: true, force: true });
    fs.renameSync(tmp, final);
    fsyncDir(this.dir);
  }

  private trainNow(header: TrainHeader, groups: TrainGroup[]): TrainResult {
    const t0 = performance.now();
    validateTrainRequest(header, groups, ['pointer']);
    const base = header.baseVersion;
    const target = header.targetVersion;
    // replay: the same batch from the same base was already trained
    const stored = this.storedResult(target);
    if (stored && stored.batchId === header.batchId) {
      this.log.info({ batch: header.batchId, base: Number(base), version: Number(target) }, 'update already made; answering the stored result');
      const r = clone(TrainResultSchema, stored);
      r.replayed = true;
      return r;
    }
    const versions = this.versions();
    if (!versions.includes(base)) {
      throw new TrainerError(
        TrainerErrorCode.UnknownBaseVersion,
        `base_version ${base} is not restorable; this trainer holds versions ${versions.join(', ') || 'none'} (it keeps the newest ${this.keepVersions})`,
      );
    }
    // an update from an older version starts from that version's weights and optimizer state
    const start = base === this.held.version ? this.held : this.load(base);
    const model = start.model.clone();
    const hyper = header.hyper;
    let optimizer = Adam.fromBytes(start.optimizer.toBytes());
    if (hyper && hyper.learningRate > 0 && hyper.learningRate !== optimizer.lr) {
      const s = optimizer.toJSON();
      optimizer = Adam.fromJSON({ ...s, options: { ...s.options, lr: hyper.learningRate } });
    }
    const samples = samplesOf(groups);
    this.checkTemperature(header, groups, model.temperature);
    const epochs = this.runEpochs(model, optimizer, samples, groups, header);
    const actions = samples.reduce((a, s) => a + s.length, 0);
    const onnx = model.toOnnx();
    const file = path.join(this.versionDir(target), MODEL_FILE);
    const artifact = make(PolicyArtifactSchema, {
      version: target,
      uri: this.opts.artifactUri ? this.opts.artifactUri(target, file) : pathToFileURL(file).href,
      sha256: createHash('sha256').update(onnx).digest('hex'),
      bytes: BigInt(onnx.length),
      kind: POINTER_ARTIFACT_KIND,
      runId: header.runId,
      createdAtMs: BigInt(this.now()),
      temperature: model.temperature,
    });
    const result = make(TrainResultSchema, {
      batchId: header.batchId,
      version: target,
      artifact,
      epochs,
      replayed: false,
      trainS: (performance.now() - t0) / 1000,
      samples: BigInt(samples.length),
      actions: BigInt(actions),
    });
    // newer versions (a batch trained before the learner's restart) give way to this one
    for (const v of versions) if (v > base) fs.rmSync(this.versionDir(v), { recursive: true, force: true });
    this.writeVersion(target, model, optimizer, result);
    this.held = { version: target, model, optimizer };
    this.prune();
    this.log.info({ batch: header.batchId, base: Number(base), version: Number(target), samples: samples.length, actions }, 'pointer policy updated');
    return result;
  }

  private checkTemperature(header: TrainHeader, groups: readonly TrainGroup[], temperature: number): void {
    const differs = (t: number) => t > 0 && Math.abs(t - temperature) > 1e-6 * temperature;
    const ht = header.hyper?.temperature ?? 0;
    if (differs(ht)) throw new TrainerError(TrainerErrorCode.InvalidRequest, `header.hyper.temperature ${ht} differs from the pointer model's ${temperature}`);
    groups.forEach((g, gi) =>
      g.samples.forEach((s, si) =>
        s.steps.forEach((st, ti) => {
          const t = st.trace?.kind.case === 'pointer' ? st.trace.kind.value.temperature : 0;
          if (differs(t)) {
            throw new TrainerError(TrainerErrorCode.InvalidRequest, `groups[${gi}].samples[${si}].steps[${ti}].trace.pointer.temperature ${t} differs from the pointer model's ${temperature}`);
          }
        }),
      ),
    );
  }

  /**
   * The request's rule through GrpoTrainer, the in-process learner's own update: `ppo_epochs`
   * passes of `minibatches` Adam steps (trajectories dealt round-robin), each step inside the
   * `trust_kl` region (0 = off), token_mean or seq_mean loss, `kl_stop`. Fields left at 0 take this
   * trainer's options, then the defaults.
   */
  private runEpochs(model: PointerModel, optimizer: Adam, samples: GrpoSample[][], groups: readonly TrainGroup[], header: TrainHeader): EpochStat[] {
    const h = header.hyper;
    const lossAgg = h?.lossAgg || 'token_mean';
    if (lossAgg !== 'token_mean' && lossAgg !== 'seq_mean') throw new TrainerError(TrainerErrorCode.InvalidRequest, `header.hyper.loss_agg ${JSON.stringify(lossAgg)}: expected token_mean or seq_mean`);
    let rule: GrpoTrainer;
    try {
      rule = new GrpoTrainer(model, optimizer, {
        epochs: h?.ppoEpochs || this.opts.epochs || DEFAULTS.ppoEpochs,
        minibatches: h?.minibatches || this.opts.minibatches || 1,
        clipLow: h?.clipLow || this.opts.clipLow || DEFAULTS.clipLow,
        clipHigh: h?.clipHigh || this.opts.clipHigh || DEFAULTS.clipHigh,
        trustKl: h?.trustKl ?? 0,
        lossAgg,
        klStop: h?.klStop ?? 0,
      });
    } catch (cause) {
      throw new TrainerError(TrainerErrorCode.InvalidRequest, `header.hyper: ${(cause as Error).message}`, { cause });
    }
    return rule.updateSamples(samples, groupIndexOf(groups)).epochs.map(epochStatMessage);
  }

  private prune(): void {
    const versions = this.versions();
    for (const v of versions.slice(0, Math.max(0, versions.length - this.keepVersions))) fs.rmSync(this.versionDir(v), { recursive: true, force: true });
  }
}
