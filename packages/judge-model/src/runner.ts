// The judge model in one thread: the prompt's preparation (prepare.ts) and the forward passes.
// Prepared rows are ordered by length and cut into passes by a token budget (batch-plan.ts); each
// pass is padded, fed what the session's inputs ask for (empty past key values,
// num_logits_to_keep, M-RoPE ids), and only `logits` is fetched, P(yes) read at each row's last
// real token. Decoder-only and vision-language layouts.
import * as ort from 'onnxruntime-node';
import { logitsToKeep, mropePositions, padBatch, yesProbabilities, type ImageSpan, type PaddedBatch } from './batch.js';
import { planPasses, type BatchShape } from './batch-plan.js';
import { JudgeModelError, JudgeModelErrorCode, type WireError } from './errors.js';
import { graphPaths, type ModelFolder } from './folder.js';
import { floatToHalf, readFloat } from './half.js';
import type { ImagePatches } from './image.js';
import { prepareRows, promptOptions, promptTokenLimit, type PreparedOutcome, type PreparedRow } from './prepare.js';
import type { JudgeInput, PromptOptions } from './prompt.js';
import { openSessions, type DeviceSkip, type JudgeDevice, type ResolvedDevice, type SessionSettings } from './session.js';
import { JudgeTokenizer } from './text.js';

export interface RowScore {
  pYes: number;
  /** Prompt length in tokens (image placeholders included). */
  promptTokens: number;
  /** Oldest steps left out to fit max_prompt_tokens. */
  droppedSteps: number;
}

/** A row's score, or why that row could not be scored. */
export type RowOutcome = RowScore | { error: WireError };

/** One forward pass of the decoder. */
export interface PassStats {
  rows: number;
  /** Prompt tokens of the pass's rows. */
  realTokens: number;
  /** Positions the pass computed: rows × its longest row. */
  paddedTokens: number;
  /** Wall time of the pass (vision encoder included), ms. */
  inferenceMs: number;
  /** Logits positions fetched (batch × returned sequence length). */
  logitsPositions: number;
}

export interface ForwardResult {
  rows: RowOutcome[];
  passes: PassStats[];
}

const PAST = /^past_key_values\.(\d+)\.(key|value)$/;
/**
 * Names real exports give the vision encoder's (t, h, w) grid input: `grid_thw` (Qwen2-VL as
 * transformers.js exports and feeds it), `image_grid_thw` (Qwen2.5-VL, Qwen3-VL).
 */
const GRID_INPUTS = ['grid_thw', 'image_grid_thw'];
type Meta = ort.InferenceSession.ValueMetadata;
type TensorMeta = Extract<Meta, { isTensor: true }>;

function tensorMeta(session: ort.InferenceSession, graph: string): Map<string, TensorMeta> {
  const m = new Map<string, TensorMeta>();
  for (const meta of session.inputMetadata) {
    if (!meta.isTensor) throw new JudgeModelError(JudgeModelErrorCode.InvalidModel, `${graph}: input "${meta.name}" is not a tensor`);
    m.set(meta.name, meta);
  }
  return m;
}

/** The decoder's inputs and how to fill the ones that are not the prompt itself. */
interface DecoderPlan {
  past: Array<{ name: string; type: 'float32' | 'float16'; kvHeads: number; headDim: number }>;
  mrope: boolean;
  keep: { name: string; dims: number[] } | undefined;
  useCacheBranch: boolean;
  hasPositionIds: boolean;
  /** Element type of the prompt input when it is inputs_embeds. */
  embedsType: 'float32' | 'float16';
}

function planDecoder(session: ort.InferenceSession, graph: string, folder: ModelFolder, promptInput: 'input_ids' | 'inputs_embeds'): DecoderPlan {
  const meta = tensorMeta(session, graph);
  const fail = (msg: string) => new JudgeModelError(JudgeModelErrorCode.InvalidModel, `${graph}: ${msg}`);
  for (const required of [promptInput, 'attention_mask']) {
    if (!meta.has(required)) throw fail(`has no "${required}" input (inputs: ${session.inputNames.join(', ')})`);
  }
  if (!session.outputNames.includes('logits')) throw fail(`has no "logits" output (outputs: ${session.outputNames.join(', ')})`);
  const promptType = meta.get(promptInput)?.type ?? 'float32';
  const plan: DecoderPlan = {
    past: [],
    mrope: false,
    keep: undefined,
    useCacheBranch: false,
    hasPositionIds: false,
    embedsType: promptInput === 'inputs_embeds' ? floatType(promptType, `${graph} inputs_embeds`) : 'float32',
  };
  for (const [name, m] of meta) {
    if (name === promptInput || name === 'attention_mask') continue;
    if (name === 'position_ids') {
      plan.hasPositionIds = true;
      plan.mrope = m.shape.length === 3;
    } else if (name === 'num_logits_to_keep' || name === 'logits_to_keep') {
      plan.keep = { name, dims: m.shape.length === 0 ? [] : [1] };
    } else if (name === 'use_cache_branch') {
      plan.useCacheBranch = true;
    } else if (PAST.test(name)) {
      if (m.shape.length !== 4) throw fail(`past input "${name}" has rank ${m.shape.length}; expected [batch, kv_heads, past_len, head_dim]`);
      if (m.type !== 'float32' && m.type !== 'float16') throw fail(`past input "${name}" has element type ${m.type}; expected float32 or float16`);
      const kvHeads = typeof m.shape[1] === 'number' ? m.shape[1] : folder.text.numKeyValueHeads;
      const headDim = typeof m.shape[3] === 'number' ? m.shape[3] : folder.text.headDim;
      if (kvHeads === undefined || headDim === undefined) {
        throw fail(`past input "${name}" has symbolic kv_heads/head_dim and config.json names neither num_key_value_heads nor head_dim/hidden_size`);
      }
      plan.past.push({ name, type: m.type, kvHeads, headDim });
    } else {
      throw fail(`input "${name}" is not one the judge can feed (input_ids/inputs_embeds, attention_mask, position_ids, past_key_values.*, num_logits_to_keep, use_cache_branch)`);
    }
  }
  return plan;
}

/** Feeds other than the prompt itself: mask, positions, empty past key values, logits to keep. */
function commonFeeds(plan: DecoderPlan, p: PaddedBatch, positionIds: BigInt64Array): Record<string, ort.Tensor> {
  const feeds: Record<string, ort.Tensor> = {
    attention_mask: new ort.Tensor('int64', p.attentionMask, [p.batch, p.seq]),
  };
  if (plan.hasPositionIds) {
    feeds['position_ids'] = new ort.Tensor('int64', positionIds, plan.mrope ? [3, p.batch, p.seq] : [p.batch, p.seq]);
  }
  for (const past of plan.past) feeds[past.name] = new ort.Tensor(past.type, emptyOf(past.type), [p.batch, past.kvHeads, 0, past.headDim]);
  if (plan.keep !== undefined) {
    feeds[plan.keep.name] = new ort.Tensor('int64', BigInt64Array.of(BigInt(logitsToKeep(p))), plan.keep.dims);
  }
  if (plan.useCacheBranch) feeds['use_cache_branch'] = new ort.Tensor('bool', Uint8Array.of(0), [1]);
  return feeds;
}

function decoderOnlyFeeds(plan: DecoderPlan, p: PaddedBatch): Record<string, ort.Tensor> {
  const positions = plan.mrope ? mropePositions(p, []) : p.positionIds;
  return { input_ids: new ort.Tensor('int64', p.inputIds, [p.batch, p.seq]), ...commonFeeds(plan, p, positions) };
}

/**
 * The feeds the judge gives a decoder-layout graph for a padded batch, for running the same
 * passes on a session of one's own (the judge benchmark's bare-onnxruntime baseline).
 * @throws JudgeModelError JUDGE_MODEL_INVALID_MODEL when the graph's inputs are not a decoder's.
 */
export function decoderFeedsFor(session: ort.InferenceSession, folder: ModelFolder): (p: PaddedBatch) => Record<string, ort.Tensor> {
  const plan = planDecoder(session, folder.judge.onnx.model, folder, 'input_ids');
  return (p) => decoderOnlyFeeds(plan, p);
}

function checkInputs(session: ort.InferenceSession | undefined, graph: string, required: string[], optional: string[]): void {
  const names = session?.inputNames ?? [];
  const missing = required.filter((n) => !names.includes(n));
  const unknown = names.filter((n) => !required.includes(n) && !optional.includes(n));
  if (missing.length > 0 || unknown.length > 0) {
    throw new JudgeModelError(
      JudgeModelErrorCode.InvalidModel,
      `${graph}: inputs are [${names.join(', ')}]; the judge feeds ${[...required, ...optional.map((o) => `${o} (optional)`)].join(', ')}`,
    );
  }
}

function emptyOf(type: 'float32' | 'float16'): Float32Array | Uint16Array {
  return type === 'float16' ? new Uint16Array(0) : new Float32Array(0);
}

/** Float tensor data converted to `to` (float32 data or float16 bit patterns). */
function convertFloats(data: unknown, from: string, to: string, n: number): Float32Array | Uint16Array {
  if (from === to && (data instanceof Float32Array || data instanceof Uint16Array)) return data;
  if (to === 'float16') {
    const out = new Uint16Array(n);
    for (let i = 0; i < n; i++) out[i] = floatToHalf(readFloat(data, from, i));
    return out;
  }
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) out[i] = readFloat(data, from, i);
  return out;
}

function floatType(t: string, what: string): 'float32' | 'float16' {
  if (t !== 'float32' && t !== 'float16') throw new JudgeModelError(JudgeModelErrorCode.InvalidModel, `${what} has element type ${t}; expected float32 or float16`);
  return t;
}

function pickOutput(session: ort.InferenceSession, preferred: string, graph: string): string {
  if (session.outputNames.includes(preferred)) return preferred;
  const [only] = session.outputNames;
  if (session.outputNames.length === 1 && only !== undefined) return only;
  throw new JudgeModelError(JudgeModelErrorCode.InvalidModel, `${graph}: no "${preferred}" output (outputs: ${session.outputNames.join(', ')})`);
}

export class JudgeRunner {
  private readonly prompt: PromptOptions;

  private constructor(
    private readonly folder: ModelFolder,
    readonly tokenizer: JudgeTokenizer,
    private readonly sessions: ort.InferenceSession[],
    private readonly plan: DecoderPlan,
    readonly device: ResolvedDevice,
    readonly passedOver: DeviceSkip[],
    private readonly maxPromptTokens: number,
  ) {
    this.prompt = promptOptions(folder);
  }

  /**
   * Loads tokenizer and graphs of a read folder on `device`.
   * @throws JudgeModelError (invalid model, device unavailable, yes/no not single tokens).
   */
  static async open(folder: ModelFolder, device: JudgeDevice, settings: SessionSettings, maxPromptTokens?: number): Promise<JudgeRunner> {
    const tokenizer = new JudgeTokenizer(folder);
    const max = promptTokenLimit(folder, maxPromptTokens);
    const g = graphPaths(folder);
    const files = folder.judge.layout === 'decoder' ? [g.model] : [g.visionEncoder, g.embedTokens, g.decoder];
    const opened = await openSessions(files, device, settings);
    try {
      const decoder = opened.sessions[opened.sessions.length - 1];
      if (decoder === undefined) throw new JudgeModelError(JudgeModelErrorCode.InvalidModel, 'no decoder graph');
      const graph = folder.judge.layout === 'decoder' ? folder.judge.onnx.model : folder.judge.onnx.decoder;
      const plan = planDecoder(decoder, graph, folder, folder.judge.layout === 'decoder' ? 'input_ids' : 'inputs_embeds');
      if (folder.judge.layout === 'vlm') {
        checkInputs(opened.sessions[0], folder.judge.onnx.visionEncoder, ['pixel_values'], GRID_INPUTS);
        const grids = GRID_INPUTS.filter((n) => opened.sessions[0]?.inputNames.includes(n));
        if (grids.length > 1) throw new JudgeModelError(JudgeModelErrorCode.InvalidModel, `${folder.judge.onnx.visionEncoder}: takes both ${grids.join(' and ')}; expected one grid input`);
        checkInputs(opened.sessions[1], folder.judge.onnx.embedTokens, ['input_ids'], []);
      }
      return new JudgeRunner(folder, tokenizer, opened.sessions, plan, opened.device, opened.passedOver, max);
    } catch (e) {
      await Promise.all(opened.sessions.map((s) => s.release()));
      throw e;
    }
  }

  async release(): Promise<void> {
    await Promise.all(this.sessions.map((s) => s.release()));
  }

  /**
   * Renders, tokenizes and fits each input, and decodes and patches its screenshot: the CPU work
   * of a judgement, which on a GPU runs in other threads while the model works. A row whose own
   * data fails (undecodable screenshot, prompt that cannot fit) carries its error.
   */
  prepare(inputs: readonly JudgeInput[]): PreparedOutcome[] {
    return prepareRows(this.folder, this.tokenizer, this.prompt, this.maxPromptTokens, inputs);
  }

  /**
   * Scores prepared rows: ordered by length and cut into passes by `shape` (batch-plan.ts), one
   * forward pass each. Rows that carry an error keep it and take no part. Errors of a pass throw.
   */
  async forward(prepared: readonly PreparedOutcome[], shape: BatchShape): Promise<ForwardResult> {
    const good = prepared.flatMap((x, i) => ('error' in x ? [] : [{ row: x, at: i }]));
    const rows: RowOutcome[] = prepared.map((x) => ('error' in x ? { error: x.error } : { pYes: NaN, promptTokens: 0, droppedSteps: x.dropSteps }));
    const passes: PassStats[] = [];
    for (const planned of planPasses(
      good.map((g) => g.row.ids.length),
      shape,
    )) {
      const members = planned.rows.map((i) => good[i]).filter((g): g is { row: PreparedRow; at: number } => g !== undefined);
      const pass = await this.runPass(members.map((m) => m.row));
      members.forEach((m, k) => {
        rows[m.at] = { pYes: pass.p[k] ?? NaN, promptTokens: m.row.ids.length, droppedSteps: m.row.dropSteps };
      });
      passes.push({ rows: members.length, realTokens: planned.realTokens, paddedTokens: planned.paddedTokens, inferenceMs: pass.inferenceMs, logitsPositions: pass.logitsPositions });
    }
    return { rows, passes };
  }

  /** prepare, then forward: a judgement start to end in this thread (the CPU device). */
  async score(inputs: readonly JudgeInput[], shape: BatchShape): Promise<ForwardResult> {
    return this.forward(this.prepare(inputs), shape);
  }

  private async runPass(rows: readonly PreparedRow[]) {
    const ids = rows.map((x) => x.ids);
    const padded = padBatch(ids, this.tokenizer.padId, this.tokenizer.paddingSide);
    const t0 = performance.now();
    const logits =
      this.folder.judge.layout === 'decoder'
        ? await this.runDecoderOnly(padded)
        : await this.runVlm(
            padded,
            ids,
            rows.map((x) => x.image),
          );
    const inferenceMs = performance.now() - t0;
    const p = yesProbabilities(padded, logits, this.tokenizer.yesId, this.tokenizer.noId);
    return { p, logitsPositions: (logits.dims[0] ?? 0) * (logits.dims[1] ?? 0), inferenceMs };
  }

  private commonFeeds(p: PaddedBatch, positionIds: BigInt64Array): Record<string, ort.Tensor> {
    return commonFeeds(this.plan, p, positionIds);
  }

  private async runLogits(session: ort.InferenceSession, feeds: Record<string, ort.Tensor>): Promise<ort.Tensor> {
    const out = await session.run(feeds, ['logits']);
    const logits = out['logits'];
    if (logits === undefined) throw new JudgeModelError(JudgeModelErrorCode.InferenceFailed, 'the decoder returned no logits');
    return logits;
  }

  private async runDecoderOnly(p: PaddedBatch): Promise<ort.Tensor> {
    const [session] = this.sessions;
    if (session === undefined) throw new JudgeModelError(JudgeModelErrorCode.InferenceFailed, 'no session');
    return this.runLogits(session, decoderOnlyFeeds(this.plan, p));
  }

  private async runVlm(p: PaddedBatch, rows: ReadonlyArray<readonly number[]>, images: ReadonlyArray<ImagePatches | undefined>): Promise<ort.Tensor> {
    const [vision, embed, decoder] = this.sessions;
    if (vision === undefined || embed === undefined || decoder === undefined) throw new JudgeModelError(JudgeModelErrorCode.InferenceFailed, 'missing sessions');
    const g = this.folder.judge.onnx;
    const embOut = await embed.run({ input_ids: new ort.Tensor('int64', p.inputIds, [p.batch, p.seq]) }, [pickOutput(embed, 'inputs_embeds', g.embedTokens)]);
    const emb = Object.values(embOut)[0];
    if (emb === undefined || emb.dims.length !== 3) throw new JudgeModelError(JudgeModelErrorCode.InferenceFailed, `${g.embedTokens} returned no [batch, seq, hidden] embeddings`);
    const hidden = emb.dims[2] ?? 0;
    const embType = floatType(emb.type, `${g.embedTokens} output`);
    const embeds = convertFloats(emb.data, emb.type, embType, emb.size);

    const m = this.folder.preprocessor?.mergeSize ?? 1;
    const spans: ImageSpan[] = [];
    const present = images.flatMap((im, r) => (im === undefined ? [] : [{ im, r }]));
    if (present.length > 0) {
      const features = await this.runVision(vision, present.map((x) => x.im));
      const totalTokens = present.reduce((s, x) => s + x.im.tokens, 0);
      if (features.dims.length < 2 || features.dims[features.dims.length - 1] !== hidden || features.size !== totalTokens * hidden) {
        throw new JudgeModelError(
          JudgeModelErrorCode.InferenceFailed,
          `${g.visionEncoder} returned image features of shape [${features.dims.join(', ')}]; expected ${totalTokens} rows of ${hidden}`,
        );
      }
      const feat = convertFloats(features.data, floatType(features.type, `${g.visionEncoder} output`), embType, features.size);
      let row = 0;
      for (const { im, r } of present) {
        const ids = rows[r] ?? [];
        const start = ids.indexOf(this.tokenizer.imageTokenId ?? -1);
        if (start < 0) throw new JudgeModelError(JudgeModelErrorCode.InferenceFailed, `row ${r}: no image placeholder in the prompt`);
        const at = r * p.seq + (p.offsets[r] ?? 0) + start;
        embeds.set(feat.subarray(row * hidden, (row + im.tokens) * hidden), at * hidden);
        row += im.tokens;
        spans.push({ row: r, start, grid: [im.grid[0], im.grid[1] / m, im.grid[2] / m] });
      }
    }
    const decType = this.plan.embedsType;
    const positions = this.plan.mrope ? mropePositions(p, spans) : p.positionIds;
    return this.runLogits(decoder, {
      inputs_embeds: new ort.Tensor(decType, convertFloats(embeds, embType, decType, embeds.length), [p.batch, p.seq, hidden]),
      ...this.commonFeeds(p, positions),
    });
  }

  private async runVision(vision: ort.InferenceSession, ims: ImagePatches[]): Promise<ort.Tensor> {
    const g = this.folder.judge.onnx.visionEncoder;
    const meta = tensorMeta(vision, g);
    const pv = meta.get('pixel_values');
    if (pv === undefined) throw new JudgeModelError(JudgeModelErrorCode.InvalidModel, `${g}: has no "pixel_values" input (inputs: ${vision.inputNames.join(', ')})`);
    const dim = ims[0]?.patchDim ?? 0;
    const total = ims.reduce((s, im) => s + im.numPatches, 0);
    const all = new Float32Array(total * dim);
    let o = 0;
    for (const im of ims) {
      all.set(im.patches, o);
      o += im.patches.length;
    }
    const pvType = floatType(pv.type, `${g} pixel_values`);
    const feeds: Record<string, ort.Tensor> = { pixel_values: new ort.Tensor(pvType, convertFloats(all, 'float32', pvType, all.length), [total, dim]) };
    const grid = GRID_INPUTS.find((n) => meta.has(n));
    if (grid !== undefined) {
      feeds[grid] = new ort.Tensor('int64', BigInt64Array.from(ims.flatMap((im) => im.grid.map(BigInt))), [ims.length, 3]);
    }
    const out = await vision.run(feeds, [pickOutput(vision, 'image_features', g)]);
    const t = Object.values(out)[0];
    if (t === undefined) throw new JudgeModelError(JudgeModelErrorCode.InferenceFailed, `${g} returned no image features`);
    return t;
  }
}
