// writeTinyDecoderJudge: a complete decoder-layout judge folder whose logits are a hand-computable
// function of the prompt: x[t] = E[input_ids[t]] + P[position_ids[t]], then the masked causal
// mean, a ReLU layer and the output projection (common.ts). Its config.json is a Qwen2 one, so
// transformers.js loads the folder as it is. Tests and the judge bench use it.
import fs from 'node:fs';
import path from 'node:path';
import { JudgeModelError, JudgeModelErrorCode } from '../errors.js';
import { OWRL_JUDGE_FILE } from '../folder.js';
import { addHead, graphWriteOptions, makeHead, seeded, uniform, writeJson, type TinyCommonOptions, type TinyHead } from './common.js';
import { DType, writeModel, type GraphSpec } from './onnx.js';
import { buildTinyTokenizer, type TinyTokenizer } from './tokenizer.js';

export interface TinyDecoderWeights extends TinyHead {
  maxPositions: number;
  /** [vocab, hidden] token embeddings. */
  embed: Float32Array;
  /** [maxPositions, hidden] position embeddings. */
  pos: Float32Array;
}

export interface TinyDecoderJudge {
  dir: string;
  weights: TinyDecoderWeights;
  tokenizer: TinyTokenizer;
}

export interface ResolvedTinyDims {
  vocab: number;
  hidden: number;
  layers: number;
  kvHeads: number;
  headDim: number;
  maxPositions: number;
}

export function tinyDims(opts: TinyCommonOptions, tokenizerSize: number): ResolvedTinyDims {
  const hidden = opts.hidden ?? 16;
  const kvHeads = opts.kvHeads ?? 2;
  const vocab = opts.vocab ?? tokenizerSize;
  if (hidden % kvHeads !== 0) throw new JudgeModelError(JudgeModelErrorCode.InvalidArgument, `hidden ${hidden} must be a multiple of kvHeads ${kvHeads}`);
  if (vocab < tokenizerSize) throw new JudgeModelError(JudgeModelErrorCode.InvalidArgument, `vocab ${vocab} is smaller than the tokenizer's ${tokenizerSize} tokens`);
  return { vocab, hidden, layers: opts.layers ?? 2, kvHeads, headDim: hidden / kvHeads, maxPositions: opts.maxPositions ?? 1024 };
}

/** Writes the folder (created if missing) and returns its weights for hand computations. */
export function writeTinyDecoderJudge(dir: string, opts: TinyCommonOptions = {}): TinyDecoderJudge {
  const tokenizer = buildTinyTokenizer({ paddingSide: opts.paddingSide ?? 'left', ...(opts.padToken !== undefined ? { padToken: opts.padToken } : {}) });
  const d = tinyDims(opts, tokenizer.size);
  const rng = seeded(opts.seed ?? 1);
  const weights: TinyDecoderWeights = {
    ...makeHead(rng, d.hidden, d.vocab),
    maxPositions: d.maxPositions,
    embed: uniform(rng, d.vocab * d.hidden, 2),
    pos: uniform(rng, d.maxPositions * d.hidden, 2),
  };
  const g: GraphSpec = {
    name: 'owrl_tiny_decoder_judge',
    nodes: [
      { op: 'Gather', inputs: ['embed', 'input_ids'], outputs: ['tok'] },
      { op: 'Gather', inputs: ['pos', 'position_ids'], outputs: ['posv'] },
      { op: 'Add', inputs: ['tok', 'posv'], outputs: ['x'] },
    ],
    initializers: [
      { name: 'embed', float: weights.embed, dims: [d.vocab, d.hidden] },
      { name: 'pos', float: weights.pos, dims: [d.maxPositions, d.hidden] },
    ],
    inputs: [
      { name: 'input_ids', type: DType.INT64, dims: ['batch_size', 'sequence_length'] },
      { name: 'position_ids', type: DType.INT64, dims: ['batch_size', 'sequence_length'] },
    ],
    outputs: [],
  };
  addHead(g, {
    tokens: 'x',
    layers: d.layers,
    kvHeads: d.kvHeads,
    headDim: d.headDim,
    kvDims: [d.kvHeads, d.headDim],
    float16: opts.float16 ?? false,
    numLogitsToKeep: opts.numLogitsToKeep ?? false,
    head: weights,
  });
  fs.mkdirSync(path.join(dir, 'onnx'), { recursive: true });
  writeModel(path.join(dir, 'onnx', 'model.onnx'), g, graphWriteOptions('model.onnx', opts));
  writeJson(dir, 'config.json', {
    model_type: 'qwen2',
    architectures: ['Qwen2ForCausalLM'],
    bos_token_id: tokenizer.ids['<|endoftext|>'],
    eos_token_id: tokenizer.ids['<|im_end|>'],
    intermediate_size: d.hidden,
    rms_norm_eps: 1e-6,
    tie_word_embeddings: false,
    vocab_size: d.vocab,
    hidden_size: d.hidden,
    num_hidden_layers: d.layers,
    num_attention_heads: d.kvHeads,
    num_key_value_heads: d.kvHeads,
    max_position_embeddings: d.maxPositions,
    torch_dtype: opts.float16 ? 'float16' : 'float32',
  });
  writeJson(dir, 'tokenizer.json', tokenizer.tokenizerJson);
  writeJson(dir, 'tokenizer_config.json', tokenizer.tokenizerConfig);
  writeJson(dir, OWRL_JUDGE_FILE, { layout: 'decoder', yes_token: 'yes', no_token: 'no', threshold: 0.5, ...opts.judge });
  return { dir, weights, tokenizer };
}
