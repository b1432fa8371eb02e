// OnnxJudge: the public face of the judge model. Loads a model folder on a device (CUDA, WebGPU or
// the CPU) into a pool of worker threads, scores batches of judgements (P(yes) from one forward
// pass each) with a deadline, and reports the device in use (and why `auto` passed over others),
// the judge version, and how full its passes were.
import os from 'node:os';
import { noopMeter, silentLogger, type Logger, type Meter } from '@owrl/core';
import { fromWireError, JudgeModelError, JudgeModelErrorCode } from './errors.js';
import { hashModelFolder, readModelFolder, type JudgeLayout } from './folder.js';
import { WorkerPool } from './pool.js';
import type { JudgeInput } from './prompt.js';
import { paddingWaste, type BatchShape } from './batch-plan.js';
import { createJudgeModelMetrics, recordDevice, recordPasses, type JudgeModelMetrics } from './metrics.js';
import type { PassStats, RowScore } from './runner.js';
import { defaultGpuThreads, describeChoice, isGpu, JUDGE_DEVICES, type DeviceSkip, type JudgeDevice, type ResolvedDevice } from './session.js';

export interface OnnxJudgeOptions {
  /** Model folder (README.md describes its files). */
  modelDir: string;
  /** Default 'auto': CUDA, else WebGPU, else the CPU, saying why it passed over each. */
  device?: JudgeDevice;
  /** Inference worker threads on the CPU, each with its own copy of the model (default 1). A GPU holds one copy. */
  workers?: number;
  /**
   * Threads that render, tokenize and preprocess prompts beside the model, so the model never
   * waits for them. Default 2 on a GPU; 0 on the CPU, where each inference worker prepares its own.
   */
  prepareWorkers?: number;
  /**
   * onnxruntime intra-op threads per inference worker. Default: available cores / workers on the
   * CPU; on a GPU, where they only run the nodes left on the CPU, min(4, cores).
   */
  threads?: number;
  /** Overrides owrl_judge.json `threshold`. */
  threshold?: number;
  /** Most rows in one forward pass; calls are split into chunks of this size. Default 8 on the CPU, 32 on a GPU. */
  maxBatch?: number;
  /** Most padded positions (rows × longest row) in one forward pass. Default 16384 on the CPU and on a GPU. */
  batchTokens?: number;
  /** Overrides owrl_judge.json `max_prompt_tokens`. */
  maxPromptTokens?: number;
  /** Default deadline of a scoreBatch call, ms. Default 60 000. */
  timeoutMs?: number;
  /** V8 heap limit of each worker, MiB (a worker over it dies and is replaced). */
  workerHeapMb?: number;
  logger?: Logger;
  /** owrl_judge_model_* metrics (metrics.ts). */
  meter?: Meter;
}

/** Defaults of the pass shape and workers per kind of device. */
export const DEVICE_DEFAULTS = {
  cpu: { maxBatch: 8, batchTokens: 16_384, prepareWorkers: 0 },
  gpu: { maxBatch: 32, batchTokens: 16_384, prepareWorkers: 2 },
} as const;

/** One judgement's score. The API judge also says how it got P(yes). */
export interface JudgeScore extends RowScore {
  /** logprobs: from the yes/no log-probabilities; answer: from the answer text (1 or 0). ONNX: unset (logits). */
  basis?: 'logprobs' | 'answer';
  /** API judge: the generated text (trimmed, at most 80 characters). */
  answer?: string;
  /** API judge, basis logprobs: the yes/no candidates used, as `"token"=logprob`. */
  candidates?: string[];
  /** API judge, basis answer: why the log-probabilities were not used. */
  fallback?: string;
}

export interface ScoreOptions {
  signal?: AbortSignal;
  /** Deadline of the whole call, queueing included, ms. */
  timeoutMs?: number;
}

export interface JudgeStats {
  /** Forward passes. */
  batches: number;
  judgements: number;
  /** Prompt tokens run through the model. */
  realTokens: number;
  /** Positions the passes computed (rows × each pass's longest row). */
  paddedTokens: number;
  /** Padding's share of the positions computed: (padded − real) / padded. */
  paddingWaste: number;
  /** Logits positions fetched from the model (batch × returned sequence length), summed. */
  logitsPositions: number;
  inferenceMs: number;
  timeouts: number;
  crashes: number;
}

/** What modelVerdictSource needs from a judge. */
export interface BatchScorer {
  readonly version: string;
  readonly threshold: number;
  readonly maxBatch: number;
  scoreEach(inputs: JudgeInput[], opts?: ScoreOptions): Promise<Array<JudgeScore | JudgeModelError>>;
}

function positiveInt(v: number | undefined, name: string, fallback: number): number {
  if (v === undefined) return fallback;
  if (!Number.isInteger(v) || v <= 0) throw new JudgeModelError(JudgeModelErrorCode.InvalidArgument, `${name} must be a positive integer, got ${v}`);
  return v;
}

export class OnnxJudge implements BatchScorer {
  private readonly counts = { batches: 0, judgements: 0, realTokens: 0, paddedTokens: 0, logitsPositions: 0, inferenceMs: 0 };

  private constructor(
    private readonly pool: WorkerPool,
    private readonly metrics: JudgeModelMetrics,
    /** The device the model runs on. */
    readonly device: ResolvedDevice,
    /** The device asked for. */
    readonly requested: JudgeDevice,
    /** With `auto`: the devices tried before `device`, and why each was passed over. */
    readonly passedOver: readonly DeviceSkip[],
    readonly version: string,
    readonly threshold: number,
    readonly layout: JudgeLayout,
    readonly maxBatch: number,
    readonly batchTokens: number,
    /** Copies of the model (inference workers): one on a GPU. */
    readonly workers: number,
    /** Threads preparing prompts beside the model (0: each inference worker prepares its own). */
    readonly prepareWorkers: number,
    /** onnxruntime intra-op threads per model worker. */
    readonly threads: number,
    private readonly timeoutMs: number,
  ) {}

  /**
   * Loads the model: on the CPU in `workers` worker threads, on a GPU once, with `workers`
   * threads preparing prompts beside it.
   * @throws JudgeModelError JUDGE_MODEL_INVALID_MODEL (folder, tokenizer, graphs, yes/no tokens),
   *   JUDGE_MODEL_DEVICE_UNAVAILABLE (device 'cuda' or 'webgpu' that cannot be used here),
   *   JUDGE_MODEL_INVALID_ARGUMENT (options).
   */
  static async load(opts: OnnxJudgeOptions): Promise<OnnxJudge> {
    const logger = opts.logger ?? silentLogger;
    const device = opts.device ?? 'auto';
    if (!(JUDGE_DEVICES as readonly string[]).includes(device)) {
      throw new JudgeModelError(JudgeModelErrorCode.InvalidArgument, `device must be one of ${JUDGE_DEVICES.map((d) => `"${d}"`).join(', ')}, got ${JSON.stringify(device)}`);
    }
    const workers = positiveInt(opts.workers, 'workers', 1);
    const prepareOpt = opts.prepareWorkers;
    if (prepareOpt !== undefined && !(Number.isInteger(prepareOpt) && prepareOpt >= 0)) {
      throw new JudgeModelError(JudgeModelErrorCode.InvalidArgument, `prepareWorkers must be an integer >= 0, got ${prepareOpt}`);
    }
    const layout = (d: ResolvedDevice) => ({
      models: isGpu(d) ? 1 : workers,
      prepare: prepareOpt ?? DEVICE_DEFAULTS[isGpu(d) ? 'gpu' : 'cpu'].prepareWorkers,
    });
    // The first inference worker is started before the device is known: it gets both counts.
    const threadsOpt = opts.threads === undefined ? undefined : positiveInt(opts.threads, 'threads', 1);
    const cpuThreads = threadsOpt ?? Math.max(1, Math.floor(os.availableParallelism() / workers));
    const gpuThreads = threadsOpt ?? defaultGpuThreads(os.availableParallelism());
    const maxBatchOpt = opts.maxBatch === undefined ? undefined : positiveInt(opts.maxBatch, 'maxBatch', 1);
    const batchTokensOpt = opts.batchTokens === undefined ? undefined : positiveInt(opts.batchTokens, 'batchTokens', 1);
    const timeoutMs = positiveInt(opts.timeoutMs, 'timeoutMs', 60_000);
    const maxPromptTokens = opts.maxPromptTokens === undefined ? undefined : positiveInt(opts.maxPromptTokens, 'maxPromptTokens', 1);
    if (opts.threshold !== undefined && !(opts.threshold >= 0 && opts.threshold <= 1)) {
      throw new JudgeModelError(JudgeModelErrorCode.InvalidArgument, `threshold must be within [0, 1], got ${opts.threshold}`);
    }
    const shapeFor = (d: ResolvedDevice): BatchShape => {
      const def = DEVICE_DEFAULTS[isGpu(d) ? 'gpu' : 'cpu'];
      return { maxRows: maxBatchOpt ?? def.maxBatch, tokenBudget: batchTokensOpt ?? def.batchTokens };
    };
    const folder = readModelFolder(opts.modelDir);
    const ref: { judge?: OnnxJudge } = {};
    const { pool, ready } = await WorkerPool.start({
      layout,
      init: { modelDir: folder.dir, device, threads: cpuThreads, gpuThreads, ...(maxPromptTokens !== undefined ? { maxPromptTokens } : {}) },
      shapeFor,
      onPasses: (passes) => ref.judge?.countPasses(passes),
      ...(opts.workerHeapMb !== undefined ? { resourceLimits: { maxOldGenerationSizeMb: positiveInt(opts.workerHeapMb, 'workerHeapMb', 1) } } : {}),
      logger,
    });
    let version: string;
    try {
      version = folder.judge.version ?? (await hashModelFolder(folder.dir));
    } catch (e) {
      await pool.close();
      throw e;
    }
    for (const p of ready.passedOver) {
      logger.warn({ requested: device, device: p.device, code: p.code, reason: p.reason }, `judge model: passed over ${p.device} (${p.code})`);
    }
    const shape = pool.batchShape;
    if (isGpu(ready.device) && workers > 1) {
      logger.warn({ workers, device: ready.device }, 'judge model: a GPU holds one copy of the model; workers > 1 applies to the CPU only (prepareWorkers sets the threads beside it)');
    }
    logger.info(
      {
        device: ready.device,
        requested: device,
        passedOver: ready.passedOver.map((p) => `${p.device}: ${p.code}`),
        layout: ready.layout,
        modelCopies: pool.workers.model,
        prepareWorkers: pool.workers.prepare,
        threads: isGpu(ready.device) ? gpuThreads : cpuThreads,
        maxBatch: shape.maxRows,
        batchTokens: shape.tokenBudget,
        version,
        modelDir: folder.dir,
        paddingSide: ready.paddingSide,
      },
      `judge model running on ${describeChoice(device, ready.device, ready.passedOver)}`,
    );
    const metrics = createJudgeModelMetrics(opts.meter ?? noopMeter);
    recordDevice(metrics, device, ready.device, ready.passedOver);
    const judge = new OnnxJudge(
      pool,
      metrics,
      ready.device,
      device,
      ready.passedOver,
      version,
      opts.threshold ?? folder.judge.threshold,
      folder.judge.layout,
      shape.maxRows,
      shape.tokenBudget,
      pool.workers.model,
      pool.workers.prepare,
      isGpu(ready.device) ? gpuThreads : cpuThreads,
      timeoutMs,
    );
    ref.judge = judge;
    return judge;
  }

  /**
   * P(success) of each input, in order. Inputs beyond `maxBatch` are split into several forward
   * passes run on the free workers.
   * @throws JudgeModelError JUDGE_MODEL_TIMEOUT, JUDGE_MODEL_ABORTED, JUDGE_MODEL_CRASHED,
   *   JUDGE_MODEL_CLOSED, JUDGE_MODEL_INFERENCE_FAILED, or the first row's own failure
   *   (JUDGE_MODEL_PROMPT_TOO_LONG, JUDGE_MODEL_BAD_IMAGE).
   */
  async scoreBatch(inputs: JudgeInput[], opts: ScoreOptions = {}): Promise<JudgeScore[]> {
    const each = await this.scoreEach(inputs, opts);
    return each.map((r) => {
      if (r instanceof JudgeModelError) throw r;
      return r;
    });
  }

  /**
   * Like scoreBatch, but a row whose own data fails (undecodable screenshot, prompt that cannot
   * fit) yields its error in place and does not fail the other rows.
   * @throws JudgeModelError for failures of the whole call (timeout, abort, crash, close, run()).
   */
  async scoreEach(inputs: JudgeInput[], opts: ScoreOptions = {}): Promise<Array<JudgeScore | JudgeModelError>> {
    if (inputs.length === 0) return [];
    const timeoutMs = opts.timeoutMs ?? this.timeoutMs;
    if (!(timeoutMs > 0)) throw new JudgeModelError(JudgeModelErrorCode.InvalidArgument, `timeoutMs must be > 0, got ${timeoutMs}`);
    const chunks: JudgeInput[][] = [];
    for (let i = 0; i < inputs.length; i += this.maxBatch) chunks.push(inputs.slice(i, i + this.maxBatch));
    const results = await Promise.all(chunks.map((c) => this.pool.submit(c, timeoutMs, opts.signal)));
    return results.flatMap((rows) => rows.map((r) => ('error' in r ? fromWireError(r.error) : r)));
  }

  private countPasses(passes: readonly PassStats[]): void {
    for (const p of passes) {
      this.counts.batches++;
      this.counts.judgements += p.rows;
      this.counts.realTokens += p.realTokens;
      this.counts.paddedTokens += p.paddedTokens;
      this.counts.logitsPositions += p.logitsPositions;
      this.counts.inferenceMs += p.inferenceMs;
    }
    recordPasses(this.metrics, passes, paddingWaste(this.counts.realTokens, this.counts.paddedTokens));
  }

  stats(): JudgeStats {
    return {
      ...this.counts,
      paddingWaste: paddingWaste(this.counts.realTokens, this.counts.paddedTokens),
      timeouts: this.pool.counters.timeouts,
      crashes: this.pool.counters.crashes,
    };
  }

  /** Stops the workers; pending calls reject with JUDGE_MODEL_CLOSED. */
  async close(): Promise<void> {
    await this.pool.close();
  }
}
