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
import { fork } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Logger } from '@owrl/core';
import {
  DEVICE_DEFAULTS,
  JUDGE_DEVICES,
  JudgeTokenizer,
  OnnxJudge,
  isGpu,
  promptOptions,
  promptTokenLimit,
  readModelFolder,
  type BatchShape,
  type JudgeDevice,
  type JudgeInput,
  type ModelFolder,
  type ResolvedDevice,
} from '@owrl/judge-model';
import { parseDecoderShape, writeGeneratedJudge } from '@owrl/judge-model/testing';
import { percentile, type BareRequest, type SideFigures } from './judge-bare.js';

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


const round = (x: number, digits = 2) => Number(x.toFixed(digits));


/** What the bare-session process answers (judge-bare.ts). */
interface BareAnswer {
  device: ResolvedDevice;
  shape: BatchShape;
  figures?: SideFigures;
  error?: string;
}

/**
 * Runs the bare session in a process of its own, which also resolves the device: this process
 * then holds no onnxruntime session or GPU context of its own when the judge loads, as in the
 * judge service.
 */
function bareInChild(req: BareRequest): Promise<BareAnswer> {
  const child = fork(fileURLToPath(new URL('./judge-bare.js', import.meta.url)), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise<BareAnswer>((resolve, reject) => {
    let answer: BareAnswer | undefined;
    child.on('message', (m: BareAnswer) => (answer = m));
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (answer?.error !== undefined) reject(new Error(`bare session: ${answer.error}`));
      else if (answer !== undefined) resolve(answer);
      else reject(new Error(`the bare-session process exited (${signal ?? code}) without figures`));
    });
    child.send(req);
  });
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
  // Unset: each side takes the judge's default for the device (all cores on the CPU, a few on a GPU).
  const threads = intOption(args, 'threads', undefined);
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

    // The bare session runs alone first, in its own process, on the device the judge will
    // resolve (found the way the judge finds it), with the pass shape that device implies ...
    const answer = await bareInChild({
      modelDir,
      requested: device,
      ...(threads !== undefined ? { threads } : {}),
      ids,
      seconds,
      bare: folder.judge.layout === 'decoder',
      ...(maxBatchOpt !== undefined ? { maxBatch: maxBatchOpt } : {}),
      ...(batchTokensOpt !== undefined ? { batchTokens: batchTokensOpt } : {}),
    });
    const resolved = answer.device;
    const shape = answer.shape;
    const baseline = answer.figures;
    const baselineSkipped = baseline === undefined ? 'the bare baseline runs decoder-layout graphs only' : undefined;
    if (baseline !== undefined) progress(`bare onnxruntime on ${resolved}: ${baseline.judgementsPerS.toFixed(2)} judgements/s, ${Math.round(baseline.tokensPerS)} tokens/s`);
    const calls: JudgeInput[][] = [];
    for (let i = 0; i < n; i += shape.maxRows) calls.push(inputs.slice(i, i + shape.maxRows));

    // ... then the judge, as asked for, with `inflight` calls outstanding.
    const loadStart = performance.now();
    const measured = await OnnxJudge.load({
      modelDir,
      device,
      ...(threads !== undefined ? { threads } : {}),
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
      batch_defaults: DEVICE_DEFAULTS[isGpu(resolved) ? 'gpu' : 'cpu'].maxBatch === shape.maxRows && DEVICE_DEFAULTS[isGpu(resolved) ? 'gpu' : 'cpu'].batchTokens === shape.tokenBudget,
      inflight,
      threads: measured.threads,
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
