// OnnxJudge: the public face of the judge model. Loads a model folder into a pool of worker
// threads, scores batches of judgements (P(yes) from one forward pass each) with a deadline, and
// reports the device in use and the judge version.
import os from 'node:os';
import { silentLogger, type Logger } from '@owrl/core';
import { fromWireError, JudgeModelError, JudgeModelErrorCode } from './errors.js';
import { hashModelFolder, readModelFolder, type JudgeLayout } from './folder.js';
import { WorkerPool } from './pool.js';
import type { JudgeInput } from './prompt.js';
import type { BatchScores, RowScore } from './runner.js';
import type { JudgeDevice, ResolvedDevice } from './session.js';

export interface OnnxJudgeOptions {
  /** Model folder (README.md describes its files). */
  modelDir: string;
  /** Default 'auto': CUDA when it works, else the CPU with a warning. */
  device?: JudgeDevice;
  /** Inference worker threads, each with its own copy of the model. Default 1. */
  workers?: number;
  /** onnxruntime intra-op threads per worker. Default: available cores / workers. */
  threads?: number;
  /** Overrides owrl_judge.json `threshold`. */
  threshold?: number;
  /** Largest batch one forward pass takes; bigger calls are split. Default 8. */
  maxBatch?: number;
  /** Overrides owrl_judge.json `max_prompt_tokens`. */
  maxPromptTokens?: number;
  /** Default deadline of a scoreBatch call, ms. Default 60 000. */
  timeoutMs?: number;
  /** V8 heap limit of each worker, MiB (a worker over it dies and is replaced). */
  workerHeapMb?: number;
  logger?: Logger;
}

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
  batches: number;
  judgements: number;
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
  private readonly counts = { batches: 0, judgements: 0, logitsPositions: 0, inferenceMs: 0 };

  private constructor(
    private readonly pool: WorkerPool,
    readonly device: ResolvedDevice,
    readonly version: string,
    readonly threshold: number,
    readonly layout: JudgeLayout,
    readonly maxBatch: number,
    /** Inference worker threads and onnxruntime intra-op threads per worker. */
    readonly workers: number,
    readonly threads: number,
    private readonly timeoutMs: number,
  ) {}

  /**
   * Loads the model in `workers` worker threads.
   * @throws JudgeModelError JUDGE_MODEL_INVALID_MODEL (folder, tokenizer, graphs, yes/no tokens),
   *   JUDGE_MODEL_DEVICE_UNAVAILABLE (device 'cuda' without a usable CUDA provider),
   *   JUDGE_MODEL_INVALID_ARGUMENT (options).
   */
  static async load(opts: OnnxJudgeOptions): Promise<OnnxJudge> {
    const logger = opts.logger ?? silentLogger;
    const device = opts.device ?? 'auto';
    if (!['auto', 'cuda', 'cpu'].includes(device)) {
      throw new JudgeModelError(JudgeModelErrorCode.InvalidArgument, `device must be "auto", "cuda" or "cpu", got ${JSON.stringify(device)}`);
    }
    const workers = positiveInt(opts.workers, 'workers', 1);
    const threads = positiveInt(opts.threads, 'threads', Math.max(1, Math.floor(os.availableParallelism() / workers)));
    const maxBatch = positiveInt(opts.maxBatch, 'maxBatch', 8);
    const timeoutMs = positiveInt(opts.timeoutMs, 'timeoutMs', 60_000);
    const maxPromptTokens = opts.maxPromptTokens === undefined ? undefined : positiveInt(opts.maxPromptTokens, 'maxPromptTokens', 1);
    if (opts.threshold !== undefined && !(opts.threshold >= 0 && opts.threshold <= 1)) {
      throw new JudgeModelError(JudgeModelErrorCode.InvalidArgument, `threshold must be within [0, 1], got ${opts.threshold}`);
    }
    const folder = readModelFolder(opts.modelDir);
    const { pool, ready } = await WorkerPool.start({
      size: workers,
      init: { modelDir: folder.dir, device, threads, ...(maxPromptTokens !== undefined ? { maxPromptTokens } : {}) },
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
    if (ready.fallback !== undefined) {
      logger.warn({ requested: device, reason: ready.fallback }, 'judge model: CUDA is not usable, falling back to the CPU');
    }
    logger.info(
      { device: ready.device, requested: device, layout: ready.layout, workers, threads, version, modelDir: folder.dir, paddingSide: ready.paddingSide },
      `judge model running on ${ready.device}`,
    );
    return new OnnxJudge(pool, ready.device, version, opts.threshold ?? folder.judge.threshold, folder.judge.layout, maxBatch, workers, threads, timeoutMs);
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
    const results = await Promise.all(chunks.map((c) => this.pool.submit(c, timeoutMs, opts.signal).then((s) => this.count(s))));
    return results.flatMap((s) => s.rows.map((r) => ('error' in r ? fromWireError(r.error) : r)));
  }

  private count(s: BatchScores): BatchScores {
    this.counts.batches++;
    this.counts.judgements += s.rows.filter((r) => !('error' in r)).length;
    this.counts.logitsPositions += s.logitsPositions;
    this.counts.inferenceMs += s.inferenceMs;
    return s;
  }

  stats(): JudgeStats {
    return { ...this.counts, timeouts: this.pool.counters.timeouts, crashes: this.pool.counters.crashes };
  }

  /** Stops the workers; pending calls reject with JUDGE_MODEL_CLOSED. */
  async close(): Promise<void> {
    await this.pool.close();
  }
}
