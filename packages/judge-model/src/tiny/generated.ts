// writeGeneratedJudge: a decoder-layout judge folder whose graph has the shape and the cost of a
// real judge — a pre-norm transformer decoder as Llama-family exports have it (embedding plus
// learned positions, per layer LayerNormalization, multi-head causal attention with the padding
// mask, an output projection, a SwiGLU feed-forward block, residuals; a final norm and the LM head
// on the last `num_logits_to_keep` positions) — at any width, depth, head count, feed-forward size
// and vocabulary, with seeded random weights in float32 or float16, stored in an external data
// file as exports of real judges are. The judge benchmark measures devices on it, and the device
// tests compare devices and precisions on small ones. Its verdicts mean nothing; its arithmetic is
// a real model's.
import fs from 'node:fs';
import path from 'node:path';
import { JudgeModelError, JudgeModelErrorCode } from '../errors.js';
import { OWRL_JUDGE_FILE } from '../folder.js';
import { floatToHalf } from '../half.js';
import { writeJson } from './common.js';
import { DType, ExternalDataWriter, littleEndian, writeModel, type GraphSpec, type InitializerSpec } from './onnx.js';
import { buildTinyTokenizer } from './tokenizer.js';

/** Width, depth, attention heads, feed-forward size and vocabulary (`--shape D,L,H,FF,V`). */
export interface DecoderShape {
  hidden: number;
  layers: number;
  heads: number;
  ff: number;
  vocab: number;
}

export interface GeneratedJudgeOptions {
  shape: DecoderShape;
  dtype?: 'fp32' | 'fp16';
  /** Weights in onnx/model.onnx_data (default true; false keeps them in the graph, under 2 GB only). */
  externalData?: boolean;
  maxPositions?: number;
  seed?: number;
  paddingSide?: 'left' | 'right';
}

export interface GeneratedJudge {
  dir: string;
  /** Parameters of the graph. */
  params: number;
  /** Bytes on disk of the graph and its external data. */
  bytes: number;
}

/** Parses `D,L,H,FF,V`. @throws JudgeModelError JUDGE_MODEL_INVALID_ARGUMENT naming the bad field. */
export function parseDecoderShape(text: string): DecoderShape {
  const parts = text.split(',').map((p) => p.trim());
  const names = ['hidden (D)', 'layers (L)', 'heads (H)', 'feed-forward (FF)', 'vocabulary (V)'];
  if (parts.length !== 5) throw new JudgeModelError(JudgeModelErrorCode.InvalidArgument, `shape ${JSON.stringify(text)} must be D,L,H,FF,V (five integers)`);
  const n = parts.map((p, i) => {
    const v = Number(p);
    if (p === '' || !Number.isInteger(v) || v <= 0) throw new JudgeModelError(JudgeModelErrorCode.InvalidArgument, `shape ${JSON.stringify(text)}: ${names[i]} must be a positive integer, got ${JSON.stringify(p)}`);
    return v;
  });
  const [hidden = 0, layers = 0, heads = 0, ff = 0, vocab = 0] = n;
  if (hidden % heads !== 0) throw new JudgeModelError(JudgeModelErrorCode.InvalidArgument, `shape ${JSON.stringify(text)}: hidden ${hidden} must be a multiple of heads ${heads}`);
  return { hidden, layers, heads, ff, vocab };
}

export function decoderParams(s: DecoderShape, maxPositions: number): number {
  const perLayer = 4 * s.hidden * s.hidden + 3 * s.hidden * s.ff + 2 * s.hidden;
  return s.layers * perLayer + 2 * s.vocab * s.hidden + maxPositions * s.hidden + s.hidden;
}

/** xorshift32 over a table of 65 536 values uniform in [-1, 1): fast enough for billions of weights. */
class WeightSource {
  private state: number;
  private readonly f32 = new Float32Array(65536);
  private readonly f16 = new Uint16Array(65536);

  constructor(seed: number) {
    this.state = seed >>> 0 || 0x9e3779b9;
    for (let i = 0; i < 65536; i++) {
      const v = (i + 0.5) / 32768 - 1;
      this.f32[i] = v;
      this.f16[i] = floatToHalf(v);
    }
  }

  private next(): number {
    let x = this.state;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    this.state = x >>> 0;
    return this.state;
  }

  /** `n` values uniform in [-scale, scale), as little-endian bytes in chunks of at most 4 M values. */
  *chunks(n: number, scale: number, dtype: 'fp32' | 'fp16'): Generator<Uint8Array> {
    const CHUNK = 1 << 22;
    const table = dtype === 'fp32' ? this.f32.map((v) => v * scale) : this.f16.map((_, i) => floatToHalf((this.f32[i] ?? 0) * scale));
    for (let done = 0; done < n; done += CHUNK) {
      const m = Math.min(CHUNK, n - done);
      const out = dtype === 'fp32' ? new Float32Array(m) : new Uint16Array(m);
      // Two values per draw: the low and the high 16 bits index the table.
      for (let i = 0; i < m; i += 2) {
        const r = this.next();
        out[i] = table[r & 0xffff] ?? 0;
        if (i + 1 < m) out[i + 1] = table[r >>> 16] ?? 0;
      }
      yield littleEndian(out);
    }
  }
}

function constant(dtype: 'fp32' | 'fp16', name: string, values: number[], dims: number[]): InitializerSpec {
  return dtype === 'fp16' ? { name, dims, half: Uint16Array.from(values, floatToHalf) } : { name, dims, float: Float32Array.from(values) };
}

/**
 * Writes the folder (created if missing): onnx/model.onnx (+ model.onnx_data), config.json (a
 * Llama one), the tiny tokenizer (the vocabulary beyond its tokens is never produced) and
 * owrl_judge.json.
 */
export function writeGeneratedJudge(dir: string, opts: GeneratedJudgeOptions): GeneratedJudge {
  const s = opts.shape;
  const dtype = opts.dtype ?? 'fp32';
  const ft = dtype === 'fp16' ? DType.FLOAT16 : DType.FLOAT;
  const tokenizer = buildTinyTokenizer({ paddingSide: opts.paddingSide ?? 'left' });
  if (s.vocab < tokenizer.size) throw new JudgeModelError(JudgeModelErrorCode.InvalidArgument, `vocabulary ${s.vocab} is smaller than the tokenizer's ${tokenizer.size} tokens`);
  const maxPositions = opts.maxPositions ?? 4096;
  const hd = s.hidden / s.heads;
  const onnxDir = path.join(dir, 'onnx');
  fs.mkdirSync(onnxDir, { recursive: true });
  const external = opts.externalData ?? true;
  const weights = new WeightSource(opts.seed ?? 1);
  const writer = external ? new ExternalDataWriter(onnxDir, 'model.onnx_data') : undefined;
  const g: GraphSpec = { name: 'owrl_generated_decoder_judge', nodes: [], initializers: [], inputs: [], outputs: [] };
  const node = (op: string, inputs: string[], outputs: string[], attrs?: Record<string, number | number[] | { f: number }>) =>
    g.nodes.push({ op, inputs, outputs, ...(attrs !== undefined ? { attrs } : {}) });
  /** A random [rows, cols] weight, uniform in ±scale. */
  const weight = (name: string, dims: number[], scale: number) => {
    const n = dims.reduce((a, b) => a * b, 1);
    const chunks = weights.chunks(n, scale, dtype);
    if (writer !== undefined) {
      g.initializers.push({ name, dims, external: writer.appendChunks(chunks), externalType: ft });
      return;
    }
    const bytes = Buffer.concat([...chunks]);
    const ab = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
    g.initializers.push(dtype === 'fp16' ? { name, dims, half: new Uint16Array(ab) } : { name, dims, float: new Float32Array(ab) });
  };
  const ones = (name: string, n: number) => g.initializers.push(constant(dtype, name, new Array<number>(n).fill(1), [n]));

  try {
    g.inputs.push(
      { name: 'input_ids', type: DType.INT64, dims: ['batch_size', 'sequence_length'] },
      { name: 'attention_mask', type: DType.INT64, dims: ['batch_size', 'sequence_length'] },
      { name: 'position_ids', type: DType.INT64, dims: ['batch_size', 'sequence_length'] },
      { name: 'num_logits_to_keep', type: DType.INT64, dims: [] },
    );
    g.initializers.push(
      { name: 'axes_0', int64: [0], dims: [1] },
      { name: 'axes_1', int64: [1], dims: [1] },
      { name: 'axes_12', int64: [1, 2], dims: [2] },
      { name: 'start_1', int64: [1], dims: [1] },
      { name: 'end_2', int64: [2], dims: [1] },
      { name: 'zero_i', int64: [0], dims: [] },
      { name: 'one_i', int64: [1], dims: [] },
      { name: 'int64_max', int64: [Number.MAX_SAFE_INTEGER], dims: [1] },
      { name: 'heads_shape', int64: [0, 0, s.heads, hd], dims: [4] },
      { name: 'merge_shape', int64: [0, 0, s.hidden], dims: [3] },
      { name: 'qkv_split', int64: [s.hidden, s.hidden, s.hidden], dims: [3] },
      { name: 'ff_split', int64: [s.ff, s.ff], dims: [2] },
      constant(dtype, 'att_scale', [1 / Math.sqrt(hd)], []),
      constant(dtype, 'zero_f', [0], []),
      // Finite, so a padding query that sees no real key gets a uniform softmax, not NaN; within fp16's range.
      constant(dtype, 'mask_neg', [-30000], []),
    );
    // Token and position embeddings.
    weight('embed', [s.vocab, s.hidden], 1);
    weight('pos', [maxPositions, s.hidden], 0.1);
    node('Gather', ['embed', 'input_ids'], ['tok']);
    node('Gather', ['pos', 'position_ids'], ['posv']);
    node('Add', ['tok', 'posv'], ['x_0']);
    // Mask [B, 1, T, T]: key k visible to query q when k ≤ q and k is a real token.
    node('Shape', ['input_ids'], ['ids_shape']);
    node('Slice', ['ids_shape', 'start_1', 'end_2'], ['t_vec']);
    node('Squeeze', ['t_vec', 'axes_0'], ['t_len']);
    node('Range', ['zero_i', 't_len', 'one_i'], ['steps']);
    node('Unsqueeze', ['steps', 'axes_1'], ['q_idx']);
    node('Unsqueeze', ['steps', 'axes_0'], ['k_idx']);
    node('GreaterOrEqual', ['q_idx', 'k_idx'], ['causal']);
    node('Cast', ['attention_mask'], ['key_real'], { to: DType.BOOL });
    node('Unsqueeze', ['key_real', 'axes_12'], ['key_real4']);
    node('And', ['causal', 'key_real4'], ['visible']);
    node('Where', ['visible', 'zero_f', 'mask_neg'], ['mask_bias']);

    const proj = Math.sqrt(3 / s.hidden);
    // Output projections scaled down with depth (as GPT-2 initialises them), so the residual stream stays within fp16's range.
    const outScale = proj / Math.sqrt(2 * s.layers);
    for (let l = 0; l < s.layers; l++) {
      const x = `x_${l}`;
      const p = (n: string) => `l${l}_${n}`;
      ones(p('ln1'), s.hidden);
      ones(p('ln2'), s.hidden);
      weight(p('wqkv'), [s.hidden, 3 * s.hidden], proj);
      weight(p('wo'), [s.hidden, s.hidden], outScale);
      weight(p('wgu'), [s.hidden, 2 * s.ff], proj);
      weight(p('wd'), [s.ff, s.hidden], Math.sqrt(3 / s.ff) / Math.sqrt(2 * s.layers));
      node('LayerNormalization', [x, p('ln1')], [p('h')], { axis: -1, epsilon: { f: 1e-5 } });
      node('MatMul', [p('h'), p('wqkv')], [p('qkv')]);
      node('Split', [p('qkv'), 'qkv_split'], [p('q'), p('k'), p('v')], { axis: 2 });
      node('Reshape', [p('q'), 'heads_shape'], [p('q4')]);
      node('Reshape', [p('k'), 'heads_shape'], [p('k4')]);
      node('Reshape', [p('v'), 'heads_shape'], [p('v4')]);
      node('Transpose', [p('q4')], [p('qh')], { perm: [0, 2, 1, 3] });
      node('Transpose', [p('k4')], [p('kt')], { perm: [0, 2, 3, 1] });
      node('Transpose', [p('v4')], [p('vh')], { perm: [0, 2, 1, 3] });
      node('MatMul', [p('qh'), p('kt')], [p('scores')]);
      node('Mul', [p('scores'), 'att_scale'], [p('scaled')]);
      node('Add', [p('scaled'), 'mask_bias'], [p('masked')]);
      node('Softmax', [p('masked')], [p('probs')], { axis: -1 });
      node('MatMul', [p('probs'), p('vh')], [p('ctx')]);
      node('Transpose', [p('ctx')], [p('ctx_t')], { perm: [0, 2, 1, 3] });
      node('Reshape', [p('ctx_t'), 'merge_shape'], [p('ctx_m')]);
      node('MatMul', [p('ctx_m'), p('wo')], [p('att_out')]);
      node('Add', [x, p('att_out')], [p('x_mid')]);
      node('LayerNormalization', [p('x_mid'), p('ln2')], [p('h2')], { axis: -1, epsilon: { f: 1e-5 } });
      node('MatMul', [p('h2'), p('wgu')], [p('gu')]);
      node('Split', [p('gu'), 'ff_split'], [p('gate'), p('up')], { axis: 2 });
      node('Sigmoid', [p('gate')], [p('sig')]);
      node('Mul', [p('gate'), p('sig')], [p('silu')]);
      node('Mul', [p('silu'), p('up')], [p('act')]);
      node('MatMul', [p('act'), p('wd')], [p('ff_out')]);
      node('Add', [p('x_mid'), p('ff_out')], [`x_${l + 1}`]);
    }
    ones('ln_f', s.hidden);
    weight('lm_head', [s.hidden, s.vocab], proj);
    node('LayerNormalization', [`x_${s.layers}`, 'ln_f'], ['x_final'], { axis: -1, epsilon: { f: 1e-5 } });
    node('Unsqueeze', ['num_logits_to_keep', 'axes_0'], ['keep1']);
    node('Neg', ['keep1'], ['keep_start']);
    node('Slice', ['x_final', 'keep_start', 'int64_max', 'axes_1'], ['x_kept']);
    node('MatMul', ['x_kept', 'lm_head'], ['logits']);
    g.outputs.push({ name: 'logits', type: ft, dims: ['batch_size', 'num_logits', s.vocab] });
  } finally {
    writer?.close();
  }
  const graphFile = path.join(onnxDir, 'model.onnx');
  writeModel(graphFile, g);
  writeJson(dir, 'config.json', {
    model_type: 'llama',
    architectures: ['LlamaForCausalLM'],
    bos_token_id: tokenizer.ids['<|endoftext|>'],
    eos_token_id: tokenizer.ids['<|im_end|>'],
    hidden_size: s.hidden,
    intermediate_size: s.ff,
    num_hidden_layers: s.layers,
    num_attention_heads: s.heads,
    num_key_value_heads: s.heads,
    vocab_size: s.vocab,
    max_position_embeddings: maxPositions,
    torch_dtype: dtype === 'fp16' ? 'float16' : 'float32',
  });
  writeJson(dir, 'tokenizer.json', tokenizer.tokenizerJson);
  writeJson(dir, 'tokenizer_config.json', tokenizer.tokenizerConfig);
  writeJson(dir, OWRL_JUDGE_FILE, { layout: 'decoder', yes_token: 'yes', no_token: 'no', threshold: 0.5, max_prompt_tokens: maxPositions });
  const bytes = fs.readdirSync(onnxDir).reduce((n, f) => n + fs.statSync(path.join(onnxDir, f)).size, 0);
  return { dir, params: decoderParams(s, maxPositions), bytes };
}
