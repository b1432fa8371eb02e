// Judge model benchmark, per device. The judge (worker threads, prompt rendering, tokenization,
// batching) scores a pool of judgements on `--device` and is compared with a bare onnxruntime
// session on the same graph, device and token sequences, run pass after pass on feeds built in
// advance: `overhead_ratio` = the judge's judgements/s ÷ the bare session's (target ≥ 0.9).
//
//   npm run bench -- judge [--device auto|cpu|webgpu|cuda] [--model DIR | --shape D,L,H,FF,V]
//     [--dtype fp32|fp16] [--prompt-tokens N] [--judgements N] [--batch N] [--batch-tokens N]
//     [--threads N] [--prepare-workers N] [--inflight N] [--seconds S]
//
// Without --model a decoder of --shape is generated (default 256,4,4,1024,4096: seconds on two
// cores; the issue-sized judge is 1024,24,16,2816,32000, Qwen3-8B's shape 4096,36,32,12288,151936).
// Prompts are sized to --prompt-tokens (±25 %, so passes are padded as real traffic pads them).
// The bare session runs first, on the device the judge resolves to, and is released before the
// judge loads, so the two never share the device. Figures: tokens/s (prompt tokens), judgements/s, p50/p99 per call of --batch judgements
// with --inflight calls outstanding (the judge) and per pass (the bare session), padding waste,
// and the device used (`fallback` lists what `auto` passed over).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Logger } from '@owrl/core';
import {
  AUTO_ORDER,
  DEVICE_DEFAULTS,
  JUDGE_DEVICES,
  JudgeTokenizer,
  OnnxJudge,
  decoderFeedsFor,
  graphPaths,
  isGpu,
  openSessions,
  padBatch,
  planPasses,
  probeDevice,
  promptOptions,
  promptTokenLimit,
  readModelFolder,
  type BatchShape,
  type JudgeDevice,
  type JudgeInput,
  type ModelFolder,
  type ResolvedDevice,
} from '@owrl/judge-model';
import { parseDecoderShape, probeGraphBytes, writeGeneratedJudge } from '@owrl/judge-model/testing';

const DEFAULT_SHAPE = '256,4,4,1024,4096';

function option(args: string[], name: string): string | undefined {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
}

function intOption(args: string[], name: string, def: number | undefined, min = 1): number | undefined {
  const raw = option(args, name);
  if (raw === undefined) return def;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw new Error(`--${name} must be an integer >= ${min}, got ${JSON.stringify(raw)}`);
  return n;
}

function stderrLogger(): Logger {
  const write = (level: string) => (obj: object, msg?: string) => void process.stderr.write(`judge bench [${level}] ${msg ?? ''} ${JSON.stringify(obj)}\n`);
  const logger: Logger = { debug: () => {}, info: write('info'), warn: write('warn'), error: write('error'), child: () => logger };
  return logger;
}

function progress(msg: string): void {
  process.stderr.write(`judge bench: ${msg}\n`);
}

/** A trajectory of `steps` steps in the judge's form. */
function input(steps: number, seed: number): JudgeInput {
  return {
    instruction: `find the price of item ${seed} in the shop and report it`,
    startUrl: 'http://127.0.0.1:8400/shop',
    steps: Array.from({ length: steps }, (_, i) => ({
      reasoning: `step ${i + 1}: the list shows item ${seed}; I open it to read the price`,
      url: `/shop/p/${seed * 100 + i}`,
      actions: [{ name: 'click', argsJson: `{"ref":${i + 5}}`, ok: true, errorCode: '', effects: [`navigated to /shop/p/${seed * 100 + i}`] }],
    })),
    finalAnswer: `${(seed * 1.37).toFixed(2)}`,
  };
}

/** `n` judgements whose prompts are about `target` tokens (±25 %), and their token ids. */
function sizedInputs(folder: ModelFolder, target: number, n: number): { inputs: JudgeInput[]; ids: number[][] } {
  const tokenizer = new JudgeTokenizer(folder);
  const prompt = promptOptions(folder);
  const max = promptTokenLimit(folder, undefined);
  const encode = (x: JudgeInput) => tokenizer.encodeFitting(x, prompt, max, 0);
  const inputs: JudgeInput[] = [];
  const ids: number[][] = [];
  for (let i = 0; i < n; i++) {
    const want = Math.max(1, Math.round(target * (0.75 + (0.5 * ((i * 7) % n)) / Math.max(1, n - 1))));
    // Steps grow the prompt by a near-constant amount: find the count that reaches `want`.
    let lo = 0;
    let hi = 1;
    while (encode(input(hi, i)).ids.length < want && encode(input(hi, i)).dropSteps === 0 && hi < 4096) hi *= 2;
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      if (encode(input(mid, i)).ids.length < want) lo = mid;
      else hi = mid;
    }
    const x = input(hi, i);
    inputs.push(x);
    ids.push(encode(x).ids);
  }
  return { inputs, ids };
}

function percentile(sorted: number[], q: number): number {
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[i] ?? NaN;
}

const round = (x: number, digits = 2) => Number(x.toFixed(digits));

interface SideFigures {
  judgementsPerS: number;
  tokensPerS: number;
  p50: number;
  p99: number;
}

/** The device `requested` resolves to, as the judge resolves it (probes instead of the model). */
async function firstUsable(requested: JudgeDevice): Promise<ResolvedDevice> {
  if (requested !== 'auto') return requested;
  for (const d of AUTO_ORDER) {
    if (!isGpu(d) || (await probeDevice(d, probeGraphBytes())).ok) return d;
  }
  return 'cpu';
}

/** The bare session: the judge's passes (same chunks, same length order and token budget), feeds built in advance. */
async function bare(folder: ModelFolder, device: JudgeDevice, threads: number, chunks: number[][][], shape: BatchShape, seconds: number): Promise<SideFigures & { device: string }> {
  const tokenizer = new JudgeTokenizer(folder);
  const opened = await openSessions([graphPaths(folder).model], device, { threads });
  const [session] = opened.sessions;
  if (session === undefined) throw new Error('no session');
  try {
    const feedsOf = decoderFeedsFor(session, folder);
    const passes = chunks.flatMap((chunk) =>
      planPasses(
        chunk.map((r) => r.length),
        shape,
      ).map((p) => {
        const rows = p.rows.map((i) => chunk[i] ?? []);
        return { rows: rows.length, tokens: p.realTokens, feeds: feedsOf(padBatch(rows, tokenizer.padId, tokenizer.paddingSide)) };
      }),
    );
    // Warm-up: every pass shape once (a GPU compiles and allocates per shape).
    for (const p of passes) await session.run(p.feeds, ['logits']);
    const latencies: number[] = [];
    let rows = 0;
    let tokens = 0;
    const start = performance.now();
    for (let k = 0; latencies.length < 3 || performance.now() - start < seconds * 1000; k++) {
      const p = passes[k % passes.length];
      if (p === undefined) break;
      const t0 = performance.now();
      await session.run(p.feeds, ['logits']);
      latencies.push(performance.now() - t0);
      rows += p.rows;
      tokens += p.tokens;
    }
    const wall = (performance.now() - start) / 1000;
    latencies.sort((a, b) => a - b);
    return { device: opened.device, judgementsPerS: rows / wall, tokensPerS: tokens / wall, p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99) };
  } finally {
    await session.release();
  }
}

export async function judgeBench(args: string[]): Promise<Record<string, unknown>> {
  const device = (option(args, 'device') ?? 'auto') as JudgeDevice;
  if (!(JUDGE_DEVICES as readonly string[]).includes(device)) throw new Error(`--device must be one of ${JUDGE_DEVICES.join(', ')}, got ${JSON.stringify(device)}`);
  const modelArg = option(args, 'model');
  const shapeArg = option(args, 'shape');
  if (modelArg !== undefined && shapeArg !== undefined) throw new Error('--model and --shape are exclusive: measure a model folder or a generated decoder');
  const dtype = option(args, 'dtype') ?? 'fp32';
  if (dtype !== 'fp32' && dtype !== 'fp16') throw new Error(`--dtype must be fp32 or fp16, got ${JSON.stringify(dtype)}`);
  const promptTokens = intOption(args, 'prompt-tokens', 512) ?? 512;
  const n = intOption(args, 'judgements', 32) ?? 32;
  const seconds = Number(option(args, 'seconds') ?? '6');
  if (!(seconds > 0)) throw new Error(`--seconds must be > 0, got ${option(args, 'seconds')}`);
  const threads = intOption(args, 'threads', os.availableParallelism()) ?? 1;
  const inflight = intOption(args, 'inflight', 4) ?? 4;
  const maxBatchOpt = intOption(args, 'batch', undefined);
  const batchTokensOpt = intOption(args, 'batch-tokens', undefined);
  const prepareOpt = intOption(args, 'prepare-workers', undefined, 0);

  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'owrl-bench-judge-'));
  try {
    let modelDir: string;
    let described: string;
    const t0 = performance.now();
    if (modelArg !== undefined) {
      modelDir = modelArg;
      described = modelArg;
    } else {
      const shape = parseDecoderShape(shapeArg ?? DEFAULT_SHAPE);
      const g = writeGeneratedJudge(path.join(tmp, 'model'), { shape, dtype, maxPositions: Math.max(2048, Math.ceil(promptTokens * 1.5)), seed: 7 });
      modelDir = g.dir;
      described = `generated decoder ${shapeArg ?? DEFAULT_SHAPE} ${dtype} (${(g.params / 1e6).toFixed(0)} M parameters, ${(g.bytes / 2 ** 30).toFixed(2)} GiB)`;
      progress(`wrote ${described} in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    }
    const folder = readModelFolder(modelDir);
    const { inputs, ids } = sizedInputs(folder, promptTokens, n);
    const meanTokens = ids.reduce((a, r) => a + r.length, 0) / ids.length;
    progress(`${n} judgements, ${Math.round(meanTokens)} prompt tokens on average`);

    // The device the judge will resolve, found the way it finds it (without loading the model
    // twice), and the pass shape that device implies.
    const resolved = await firstUsable(device);
    const defaults = DEVICE_DEFAULTS[isGpu(resolved) ? 'gpu' : 'cpu'];
    const shape: BatchShape = { maxRows: maxBatchOpt ?? defaults.maxBatch, tokenBudget: batchTokensOpt ?? defaults.batchTokens };
    const calls: JudgeInput[][] = [];
    const callIds: number[][][] = [];
    for (let i = 0; i < n; i += shape.maxRows) {
      calls.push(inputs.slice(i, i + shape.maxRows));
      callIds.push(ids.slice(i, i + shape.maxRows));
    }

    // The bare session runs alone on that device first ...
    let baseline: (SideFigures & { device: string }) | undefined;
    let baselineSkipped: string | undefined;
    if (folder.judge.layout === 'decoder') {
      baseline = await bare(folder, resolved, threads, callIds, shape, seconds);
      progress(`bare onnxruntime on ${baseline.device}: ${baseline.judgementsPerS.toFixed(2)} judgements/s, ${Math.round(baseline.tokensPerS)} tokens/s`);
    } else {
      baselineSkipped = 'the bare baseline runs decoder-layout graphs only';
    }

    // ... then the judge, as asked for, with `inflight` calls outstanding.
    const loadStart = performance.now();
    const measured = await OnnxJudge.load({
      modelDir,
      device,
      threads,
      logger: stderrLogger(),
      maxBatch: shape.maxRows,
      batchTokens: shape.tokenBudget,
      ...(prepareOpt !== undefined ? { prepareWorkers: prepareOpt } : {}),
    });
    const loadS = (performance.now() - loadStart) / 1000;
    const passedOver = measured.passedOver.map((p) => `${p.device}: ${p.code}`);
    let figures: SideFigures;
    let paddingWaste: number;
    let runShare: number;
    try {
      if (measured.device !== resolved) throw new Error(`the judge chose ${measured.device} where the probe found ${resolved}: the comparison would be across devices`);
      // Calls as the measurement makes them (several outstanding, so a GPU judge may merge them
      // into wider passes): a first round warms up every pass shape, the second is measured.
      const sweep = async (measure: boolean) => {
        const latencies: number[] = [];
        let judged = 0;
        let tokens = 0;
        let next = 0;
        const start = performance.now();
        const worker = async () => {
          while (measure ? latencies.length < 3 || performance.now() - start < seconds * 1000 : next < calls.length) {
            const call = calls[next++ % calls.length] ?? [];
            const c0 = performance.now();
            const scores = await measured.scoreBatch(call);
            latencies.push(performance.now() - c0);
            judged += scores.length;
            for (const s of scores) tokens += s.promptTokens;
          }
        };
        await Promise.all(Array.from({ length: inflight }, worker));
        return { latencies, judged, tokens, start };
      };
      await sweep(false);
      const before = measured.stats();
      const { latencies, judged, tokens, start } = await sweep(true);
      const wall = (performance.now() - start) / 1000;
      const after = measured.stats();
      latencies.sort((a, b) => a - b);
      figures = { judgementsPerS: judged / wall, tokensPerS: tokens / wall, p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99) };
      const real = after.realTokens - before.realTokens;
      const padded = after.paddedTokens - before.paddedTokens;
      paddingWaste = padded > 0 ? (padded - real) / padded : 0;
      // Share of the measured time the model spent in run(): the rest is owrl's (or idle).
      runShare = (after.inferenceMs - before.inferenceMs) / (wall * 1000);
      progress(`owrl judge on ${measured.device}: ${figures.judgementsPerS.toFixed(2)} judgements/s, ${Math.round(figures.tokensPerS)} tokens/s, padding ${(100 * paddingWaste).toFixed(1)} %`);
    } finally {
      await measured.close();
    }
    return {
      bench: 'judge',
      device: resolved,
      requested: device,
      ...(passedOver.length > 0 ? { fallback: passedOver } : {}),
      model: described,
      prompt_tokens: Math.round(meanTokens),
      judgements: n,
      batch: shape.maxRows,
      batch_tokens: shape.tokenBudget,
      batch_defaults: defaults.maxBatch === shape.maxRows && defaults.batchTokens === shape.tokenBudget,
      inflight,
      threads,
      load_s: round(loadS),
      tokens_per_s: Math.round(figures.tokensPerS),
      judgements_per_s: round(figures.judgementsPerS),
      p50_ms: round(figures.p50, 1),
      p99_ms: round(figures.p99, 1),
      padding_waste: round(paddingWaste, 3),
      run_share: round(runShare, 3),
      ...(baseline !== undefined
        ? {
            bare_tokens_per_s: Math.round(baseline.tokensPerS),
            bare_judgements_per_s: round(baseline.judgementsPerS),
            bare_pass_p50_ms: round(baseline.p50, 1),
            bare_pass_p99_ms: round(baseline.p99, 1),
            overhead_ratio: round(figures.judgementsPerS / baseline.judgementsPerS, 3),
          }
        : { overhead_ratio: null, overhead_ratio_skipped: baselineSkipped }),
    };
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}
