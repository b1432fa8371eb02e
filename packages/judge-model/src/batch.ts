// Batch assembly: rows of token ids padded to the longest with the pad token on the tokenizer's
// side, attention_mask 0 on padding, position ids counting real tokens only (1-D, or the 3-axis
// M-RoPE ids of Qwen2-VL), and the logits position of each row's last real token.
import os from 'node:os';
import { JudgeModelError, JudgeModelErrorCode } from './errors.js';
import { readFloat } from './half.js';

export interface PaddedBatch {
  batch: number;
  /** Padded length. */
  seq: number;
  inputIds: BigInt64Array;
  attentionMask: BigInt64Array;
  /** [batch, seq] row-major. */
  positionIds: BigInt64Array;
  /** Column of each row's first real token. */
  offsets: number[];
  lengths: number[];
}

/** Position id given to padding (masked out; the value HF uses). */
const PAD_POSITION = 1;

const LITTLE_ENDIAN = os.endianness() === 'LE';

/**
 * int64 tensor data written through its low 32-bit words: every value here (token ids, 0/1,
 * positions) is a non-negative int32, and converting each one to a BigInt cost more than the rest
 * of the batch's assembly (about 2 ms for 32 rows of 800 tokens).
 */
class Int64Writer {
  readonly data: BigInt64Array;
  private readonly words: Int32Array | undefined;

  constructor(n: number, fill: number) {
    this.data = new BigInt64Array(n);
    this.words = LITTLE_ENDIAN ? new Int32Array(this.data.buffer) : undefined;
    if (fill !== 0) for (let i = 0; i < n; i++) this.set(i, fill);
  }

  set(i: number, v: number): void {
    if (this.words !== undefined) this.words[2 * i] = v;
    else this.data[i] = BigInt(v);
  }
}

export function padBatch(rows: ReadonlyArray<readonly number[]>, padId: number, side: 'left' | 'right'): PaddedBatch {
  if (rows.length === 0) throw new JudgeModelError(JudgeModelErrorCode.InvalidArgument, 'a batch needs at least one row');
  const lengths = rows.map((r) => r.length);
  if (lengths.some((l) => l === 0)) throw new JudgeModelError(JudgeModelErrorCode.InvalidArgument, 'a prompt encoded to zero tokens');
  const seq = Math.max(...lengths);
  const b = rows.length;
  for (const [r, ids] of rows.entries()) {
    for (const id of ids) {
      if (!(Number.isInteger(id) && id >= 0 && id <= 0x7fffffff)) throw new JudgeModelError(JudgeModelErrorCode.InvalidArgument, `row ${r}: token id ${id} is not an int32 >= 0`);
    }
  }
  const inputIds = new Int64Writer(b * seq, padId);
  const attentionMask = new Int64Writer(b * seq, 0);
  const positionIds = new Int64Writer(b * seq, PAD_POSITION);
  const offsets: number[] = [];
  rows.forEach((ids, r) => {
    const off = side === 'left' ? seq - ids.length : 0;
    offsets.push(off);
    for (let i = 0; i < ids.length; i++) {
      const at = r * seq + off + i;
      inputIds.set(at, ids[i] ?? padId);
      attentionMask.set(at, 1);
      positionIds.set(at, i);
    }
  });
  return { batch: b, seq, inputIds: inputIds.data, attentionMask: attentionMask.data, positionIds: positionIds.data, offsets, lengths };
}

/** One image inside a row: its first placeholder token and its merged grid (t, h, w). */
export interface ImageSpan {
  row: number;
  /** Index of the first placeholder token in the row's (unpadded) ids. */
  start: number;
  grid: [number, number, number];
}

/**
 * Qwen2-VL M-RoPE position ids [3, batch, seq]: text tokens advance all three axes together;
 * the tokens of an image of merged grid (t, h, w) get (s + t_i, s + h_i, s + w_i) where s is the
 * next text position, and text after the image resumes at one past the largest id used.
 */
export function mropePositions(p: PaddedBatch, images: readonly ImageSpan[]): BigInt64Array {
  const plane = p.batch * p.seq;
  const out = new BigInt64Array(3 * plane).fill(BigInt(PAD_POSITION));
  for (let r = 0; r < p.batch; r++) {
    const spans = images.filter((im) => im.row === r).sort((a, b) => a.start - b.start);
    const len = p.lengths[r] ?? 0;
    const off = p.offsets[r] ?? 0;
    const set = (i: number, t: number, h: number, w: number) => {
      const at = r * p.seq + off + i;
      out[at] = BigInt(t);
      out[plane + at] = BigInt(h);
      out[2 * plane + at] = BigInt(w);
    };
    let next = 0;
    let i = 0;
    for (const span of spans) {
      for (; i < span.start; i++, next++) set(i, next, next, next);
      const [gt, gh, gw] = span.grid;
      for (let t = 0; t < gt; t++) {
        for (let h = 0; h < gh; h++) {
          for (let w = 0; w < gw; w++, i++) set(i, next + t, next + h, next + w);
        }
      }
      next += Math.max(gt, gh, gw);
    }
    if (i > len) throw new JudgeModelError(JudgeModelErrorCode.InvalidArgument, `row ${r}: image tokens run past the end of the prompt`);
    for (; i < len; i++, next++) set(i, next, next, next);
  }
  return out;
}

/**
 * How many trailing logits positions to ask for when the model takes `num_logits_to_keep`: 1
 * with left padding; with right padding enough to reach the shortest row's last real token.
 */
export function logitsToKeep(p: PaddedBatch): number {
  return p.seq - Math.min(...p.lengths.map((l, r) => (p.offsets[r] ?? 0) + l)) + 1;
}

/** Logits of shape [batch, S, vocab] where S ≤ seq covers the last S positions. */
export interface LogitsView {
  data: unknown;
  type: string;
  dims: readonly number[];
}

/**
 * P(yes) of each row: softmax over (logit_yes, logit_no) at the row's last real position.
 * @throws JudgeModelError JUDGE_MODEL_INFERENCE_FAILED when the logits do not cover that position.
 */
export function yesProbabilities(p: PaddedBatch, logits: LogitsView, yesId: number, noId: number): number[] {
  const [b, s, v] = logits.dims;
  if (logits.dims.length !== 3 || b !== p.batch || s === undefined || v === undefined || s < 1 || s > p.seq) {
    throw new JudgeModelError(JudgeModelErrorCode.InferenceFailed, `logits have shape [${logits.dims.join(', ')}]; expected [${p.batch}, 1..${p.seq}, vocab]`);
  }
  if (yesId >= v || noId >= v) {
    throw new JudgeModelError(JudgeModelErrorCode.InferenceFailed, `yes/no token ids ${yesId}/${noId} are outside the model's vocabulary of ${v} logits`);
  }
  if (logits.type !== 'float32' && logits.type !== 'float16') {
    throw new JudgeModelError(JudgeModelErrorCode.InferenceFailed, `logits have element type ${logits.type}; expected float32 or float16`);
  }
  return p.lengths.map((len, r) => {
    const col = (p.offsets[r] ?? 0) + len - 1 - (p.seq - s);
    if (col < 0) throw new JudgeModelError(JudgeModelErrorCode.InferenceFailed, `row ${r}: its last token is not among the ${s} logits positions returned`);
    const base = (r * s + col) * v;
    const yes = readFloat(logits.data, logits.type, base + yesId);
    const no = readFloat(logits.data, logits.type, base + noId);
    if (!Number.isFinite(yes) || !Number.isFinite(no)) {
      throw new JudgeModelError(JudgeModelErrorCode.InferenceFailed, `row ${r}: non-finite logits (yes ${yes}, no ${no})`);
    }
    return 1 / (1 + Math.exp(no - yes));
  });
}
