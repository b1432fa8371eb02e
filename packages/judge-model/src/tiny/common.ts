// Pieces shared by the tiny judge builders: seeded weights, the folder's JSON files, and the graph
// fragment both decoders use (masked causal mean of token + position vectors, a ReLU layer and an
// output projection; past key values concatenated with the new states into present.*).
import fs from 'node:fs';
import path from 'node:path';
import { mulberry32 } from '@owrl/core';
import { DType, type GraphSpec, type WriteModelOptions } from './onnx.js';

/** Uniform weights in [-scale, scale) from a seeded generator. */
export function uniform(rng: () => number, n: number, scale: number): Float32Array {
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) out[i] = (rng() * 2 - 1) * scale;
  return out;
}

export function seeded(seed: number): () => number {
  return mulberry32(seed >>> 0);
}

export function writeJson(dir: string, name: string, value: unknown): void {
  fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
  fs.writeFileSync(path.join(dir, name), JSON.stringify(value, null, 2));
}

/** Weights of the tiny decoders' head (shared by both layouts). */
export interface TinyHead {
  hidden: number;
  vocab: number;
  /** [hidden, hidden] row-major (input index first). */
  w1: Float32Array;
  b1: Float32Array;
  /** [hidden, vocab] row-major. */
  w2: Float32Array;
}

export function makeHead(rng: () => number, hidden: number, vocab: number): TinyHead {
  return {
    hidden,
    vocab,
    w1: uniform(rng, hidden * hidden, 2 / Math.sqrt(hidden)),
    b1: uniform(rng, hidden, 0.5),
    w2: uniform(rng, hidden * vocab, 4 / Math.sqrt(hidden)),
  };
}

export interface HeadGraphOptions {
  /** Name of the [B, T, H] float tensor of token + position vectors. */
  tokens: string;
  layers: number;
  kvHeads: number;
  headDim: number;
  /** Dims written for kv_heads and head_dim in the past inputs (numbers or symbolic names). */
  kvDims: [number | string, number | string];
  float16: boolean;
  numLogitsToKeep: boolean;
  head: TinyHead;
}

/**
 * Appends: m = attention_mask; h[t] = Σ_{s≤t} m[s]·x[s] / max(1, Σ_{s≤t} m[s]);
 * a = ReLU(h·W1 + b1); logits = a[last k]·W2 (k = num_logits_to_keep when the input exists);
 * present.i.key/value = Concat(past_key_values.i.key/value, h as [B, kv, T, hd], axis 2).
 */
export function addHead(g: GraphSpec, o: HeadGraphOptions): void {
  const { head } = o;
  const floatOut = o.float16 ? DType.FLOAT16 : DType.FLOAT;
  g.inputs.push({ name: 'attention_mask', type: DType.INT64, dims: ['batch_size', 'sequence_length'] });
  g.initializers.push(
    { name: 'w1', float: head.w1, dims: [head.hidden, head.hidden] },
    { name: 'b1', float: head.b1, dims: [head.hidden] },
    { name: 'w2', float: head.w2, dims: [head.hidden, head.vocab] },
    { name: 'axis_1', int64: [1], dims: [] },
    { name: 'axes_0', int64: [0], dims: [1] },
    { name: 'axes_1', int64: [1], dims: [1] },
    { name: 'axes_2', int64: [2], dims: [1] },
    { name: 'one', float: Float32Array.of(1), dims: [] },
    { name: 'kv_shape', int64: [0, 0, o.kvHeads, o.headDim], dims: [4] },
    { name: 'int64_max', int64: [Number.MAX_SAFE_INTEGER], dims: [1] },
  );
  g.nodes.push(
    { op: 'Cast', inputs: ['attention_mask'], outputs: ['mask_f'], attrs: { to: DType.FLOAT } },
    { op: 'Unsqueeze', inputs: ['mask_f', 'axes_2'], outputs: ['mask3'] },
    { op: 'Mul', inputs: [o.tokens, 'mask3'], outputs: ['masked'] },
    { op: 'CumSum', inputs: ['masked', 'axis_1'], outputs: ['run_sum'] },
    { op: 'CumSum', inputs: ['mask3', 'axis_1'], outputs: ['run_count'] },
    { op: 'Max', inputs: ['run_count', 'one'], outputs: ['run_count1'] },
    { op: 'Div', inputs: ['run_sum', 'run_count1'], outputs: ['hidden'] },
    { op: 'MatMul', inputs: ['hidden', 'w1'], outputs: ['l1'] },
    { op: 'Add', inputs: ['l1', 'b1'], outputs: ['l1b'] },
    { op: 'Relu', inputs: ['l1b'], outputs: ['act'] },
  );
  let act = 'act';
  if (o.numLogitsToKeep) {
    g.inputs.push({ name: 'num_logits_to_keep', type: DType.INT64, dims: [] });
    g.nodes.push(
      { op: 'Unsqueeze', inputs: ['num_logits_to_keep', 'axes_0'], outputs: ['keep1'] },
      { op: 'Neg', inputs: ['keep1'], outputs: ['keep_start'] },
      { op: 'Slice', inputs: ['act', 'keep_start', 'int64_max', 'axes_1'], outputs: ['act_kept'] },
    );
    act = 'act_kept';
  }
  g.nodes.push({ op: 'MatMul', inputs: [act, 'w2'], outputs: [o.float16 ? 'logits_f32' : 'logits'] });
  if (o.float16) g.nodes.push({ op: 'Cast', inputs: ['logits_f32'], outputs: ['logits'], attrs: { to: DType.FLOAT16 } });
  g.outputs.push({ name: 'logits', type: floatOut, dims: ['batch_size', o.numLogitsToKeep ? 'num_logits' : 'sequence_length', head.vocab] });

  g.nodes.push(
    { op: 'Reshape', inputs: ['hidden', 'kv_shape'], outputs: ['kv_4d'] },
    { op: 'Transpose', inputs: ['kv_4d'], outputs: [o.float16 ? 'kv_new_f32' : 'kv_new'], attrs: { perm: [0, 2, 1, 3] } },
  );
  if (o.float16) g.nodes.push({ op: 'Cast', inputs: ['kv_new_f32'], outputs: ['kv_new'], attrs: { to: DType.FLOAT16 } });
  for (let i = 0; i < o.layers; i++) {
    for (const kind of ['key', 'value']) {
      const past = `past_key_values.${i}.${kind}`;
      const present = `present.${i}.${kind}`;
      g.inputs.push({ name: past, type: floatOut, dims: ['batch_size', o.kvDims[0], 'past_sequence_length', o.kvDims[1]] });
      g.nodes.push({ op: 'Concat', inputs: [past, 'kv_new'], outputs: [present], attrs: { axis: 2 } });
      g.outputs.push({ name: present, type: floatOut, dims: ['batch_size', o.kvDims[0], 'total_sequence_length', o.kvDims[1]] });
    }
  }
}

/** Options both tiny builders take. */
export interface TinyCommonOptions {
  /** Logits rows; at least the tokenizer's size (default: that size). */
  vocab?: number;
  hidden?: number;
  /** Number of past key/value pairs the decoder takes. Default 2. */
  layers?: number;
  /** hidden = kvHeads · headDim. Default 2. */
  kvHeads?: number;
  maxPositions?: number;
  seed?: number;
  /** float16 logits and past key values. */
  float16?: boolean;
  /** Give the decoder a num_logits_to_keep input. */
  numLogitsToKeep?: boolean;
  paddingSide?: 'left' | 'right';
  /** pad_token of tokenizer_config.json; null leaves it out (eos is used). Default <|endoftext|>. */
  padToken?: string | null;
  /** Fields merged into owrl_judge.json. */
  judge?: Record<string, unknown>;
  /** Weights in a `<graph>_data` file next to each graph, as exports of large models have them. */
  externalData?: boolean;
}

/** writeModel options for a builder's graph file under `opts`. */
export function graphWriteOptions(file: string, opts: TinyCommonOptions): WriteModelOptions {
  return opts.externalData ? { externalData: { location: `${path.basename(file)}_data`, minBytes: 64 } } : {};
}
