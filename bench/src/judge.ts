// Judge model benchmark: writes the tiny bench judge (decoder layout, vocab 4096, hidden 256, two
// matmul layers) to a temp folder, then measures judgements/s and per-batch p50/p99 latency at
// batch sizes 1, 4 and 16 on `--device` (auto | cuda | cpu), warm-up excluded.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Logger } from '@owrl/core';
import { OnnxJudge, type JudgeDevice, type JudgeInput } from '@owrl/judge-model';
import { writeTinyDecoderJudge } from '@owrl/judge-model/testing';

const BATCH_SIZES = [1, 4, 16] as const;
const WARMUP_BATCHES = 3;
/** Measured time per batch size (after warm-up), and the batch-count bounds. */
const MEASURE_MS = 6000;
const MIN_BATCHES = 10;
const MAX_BATCHES = 400;

function option(args: string[], name: string): string | undefined {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
}

function stderrLogger(): Logger {
  const write = (level: string) => (obj: object, msg?: string) => void process.stderr.write(`judge bench [${level}] ${msg ?? ''} ${JSON.stringify(obj)}\n`);
  const logger: Logger = { debug: () => {}, info: write('info'), warn: write('warn'), error: write('error'), child: () => logger };
  return logger;
}

/** A trajectory of `steps` steps in the judge's form: a few hundred prompt tokens. */
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

function percentile(sorted: number[], q: number): number {
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[i] ?? NaN;
}

const round = (x: number, digits = 2) => Number(x.toFixed(digits));

export async function judgeBench(args: string[]): Promise<Record<string, unknown>> {
  const device = (option(args, 'device') ?? 'auto') as JudgeDevice;
  const threadsArg = option(args, 'threads');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'owrl-bench-judge-'));
  try {
    const model = writeTinyDecoderJudge(path.join(dir, 'model'), { vocab: 4096, hidden: 256, layers: 2, maxPositions: 2048, numLogitsToKeep: true, seed: 7 });
    const bytes = fs.statSync(path.join(model.dir, 'onnx', 'model.onnx')).size;
    const judge = await OnnxJudge.load({
      modelDir: model.dir,
      device,
      maxBatch: 16,
      ...(threadsArg !== undefined ? { threads: Number(threadsArg) } : {}),
      logger: stderrLogger(),
    });
    const result: Record<string, unknown> = {
      bench: 'judge',
      device: judge.device,
      model: `tiny decoder judge: vocab 4096, hidden 256, 2 matmul layers, num_logits_to_keep (${(bytes / 2 ** 20).toFixed(1)} MiB)`,
    };
    try {
      const pool = Array.from({ length: 32 }, (_, i) => input(4 + (i % 9), i));
      let tokens = 0;
      let judged = 0;
      const figures: Array<{ size: number; perS: number; p50: number; p99: number; share: number }> = [];
      for (const size of BATCH_SIZES) {
        const batch = (k: number) => Array.from({ length: size }, (_, i) => pool[(k * size + i) % pool.length] as JudgeInput);
        for (let k = 0; k < WARMUP_BATCHES; k++) await judge.scoreBatch(batch(k));
        const latencies: number[] = [];
        const inferenceBefore = judge.stats().inferenceMs;
        const start = performance.now();
        for (let k = 0; latencies.length < MAX_BATCHES && (latencies.length < MIN_BATCHES || performance.now() - start < MEASURE_MS); k++) {
          const t0 = performance.now();
          const scores = await judge.scoreBatch(batch(k));
          latencies.push(performance.now() - t0);
          for (const s of scores) tokens += s.promptTokens;
          judged += scores.length;
        }
        const wall = (performance.now() - start) / 1000;
        latencies.sort((a, b) => a - b);
        // Share of the measured time spent in onnxruntime run() (the rest: prompt rendering and
        // tokenization in the worker, and the thread hops).
        const share = round((judge.stats().inferenceMs - inferenceBefore) / (wall * 1000), 3);
        const f = { size, perS: round((latencies.length * size) / wall, 1), p50: round(percentile(latencies, 0.5)), p99: round(percentile(latencies, 0.99)), share };
        figures.push(f);
        process.stderr.write(`judge bench: batch ${size}: ${latencies.length} batches in ${wall.toFixed(1)} s, ${f.perS} judgements/s, p50 ${f.p50} ms, p99 ${f.p99} ms, ${Math.round(share * 100)} % in run()\n`);
      }
      for (const f of figures) result[`judgements_per_s_b${f.size}`] = f.perS;
      for (const f of figures) {
        result[`p50_ms_b${f.size}`] = f.p50;
        result[`p99_ms_b${f.size}`] = f.p99;
      }
      for (const f of figures) result[`run_share_b${f.size}`] = f.share;
      result['mean_prompt_tokens'] = Math.round(tokens / judged);
      result['threads'] = judge.threads;
    } finally {
      await judge.close();
    }
    return result;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
