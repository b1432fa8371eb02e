// The judge bench's bare onnxruntime session, in a process of its own (forked by judge.ts): it
// resolves the device the way the judge does (probing with a one-node graph instead of loading
// the model), cuts the judge's passes from the same token ids (chunks of the call size, ordered by
// length, cut by the token budget), builds every pass's feeds in advance and runs them back to
// back. Its own process keeps its session and GPU context out of the process the judge is
// measured in.
import os from 'node:os';
import {
  AUTO_ORDER,
  defaultGpuThreads,
  DEVICE_DEFAULTS,
  JudgeTokenizer,
  decoderFeedsFor,
  graphPaths,
  isGpu,
  openSessions,
  padBatch,
  planPasses,
  probeDevice,
  readModelFolder,
  type BatchShape,
  type JudgeDevice,
  type ModelFolder,
  type ResolvedDevice,
} from '@owrl/judge-model';
import { probeGraphBytes } from '@owrl/judge-model/testing';

export interface SideFigures {
  judgementsPerS: number;
  tokensPerS: number;
  p50: number;
  p99: number;
}

export interface BareRequest {
  modelDir: string;
  requested: JudgeDevice;
  /** Intra-op threads; unset: the judge's default for the device. */
  threads?: number;
  /** Token ids of the judgements, in the order the judge is called with them. */
  ids: number[][];
  seconds: number;
  /** Run the session (decoder layout); false: only resolve the device and shape. */
  bare: boolean;
  maxBatch?: number;
  batchTokens?: number;
}

export function percentile(sorted: number[], q: number): number {
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[i] ?? NaN;
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
async function bare(folder: ModelFolder, device: ResolvedDevice, threads: number, chunks: number[][][], shape: BatchShape, seconds: number): Promise<SideFigures> {
  const tokenizer = new JudgeTokenizer(folder);
  const opened = await openSessions([graphPaths(folder).model], device, { threads, gpuThreads: threads });
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
    return { judgementsPerS: rows / wall, tokensPerS: tokens / wall, p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99) };
  } finally {
    await session.release();
  }
}


async function answer(req: BareRequest): Promise<void> {
  const device = await firstUsable(req.requested);
  const defaults = DEVICE_DEFAULTS[isGpu(device) ? 'gpu' : 'cpu'];
  const shape: BatchShape = { maxRows: req.maxBatch ?? defaults.maxBatch, tokenBudget: req.batchTokens ?? defaults.batchTokens };
  const chunks: number[][][] = [];
  for (let i = 0; i < req.ids.length; i += shape.maxRows) chunks.push(req.ids.slice(i, i + shape.maxRows));
  const cores = os.availableParallelism();
  const threads = req.threads ?? (isGpu(device) ? defaultGpuThreads(cores) : cores);
  const figures = req.bare ? await bare(readModelFolder(req.modelDir), device, threads, chunks, shape, req.seconds) : undefined;
  process.send?.({ device, shape, ...(figures !== undefined ? { figures } : {}) });
}

// Forked by judge.ts, which also imports `percentile` from here in a process that is no such child.
if (process.send !== undefined && process.argv[1]?.endsWith('judge-bare.js') === true) {
  process.once('message', (req: BareRequest) => {
    answer(req).then(
      () => process.disconnect?.(),
      (e: unknown) => {
        process.send?.({ error: (e as Error).stack ?? String(e) }, () => process.disconnect?.());
      },
    );
  });
}
