// writeTinyVlmJudge: a complete vision-language judge folder in the transformers.js layout that
// transformers.js itself loads as a Qwen2-VL model (model_type qwen2_vl, text fields at the top
// of config.json, vision_config.spatial_merge_size, Qwen2VLProcessor in preprocessor_config.json):
//   vision_encoder.onnx  image_features = tanh(merge-block patches · Wv) / max(grid_t), its grid
//                        input named `grid_thw` as Qwen2-VL exports name it (or `image_grid_thw`)
//   embed_tokens.onnx    inputs_embeds = E[input_ids]
//   decoder_model_merged x = inputs_embeds + Pt[pos[0]] + Ph[pos[1]] + Pw[pos[2]] (M-RoPE ids
//                        [3, B, T]), then the shared head (common.ts).
import fs from 'node:fs';
import path from 'node:path';
import { OWRL_JUDGE_FILE } from '../folder.js';
import { addHead, graphWriteOptions, makeHead, seeded, uniform, writeJson, type TinyCommonOptions, type TinyHead } from './common.js';
import { tinyDims } from './decoder.js';
import { DType, writeModel, type GraphSpec } from './onnx.js';
import { buildTinyTokenizer, type TinyTokenizer } from './tokenizer.js';

export interface TinyVlmOptions extends TinyCommonOptions {
  /** Name of the vision encoder's grid input: `grid_thw` (Qwen2-VL, default) or `image_grid_thw` (Qwen2.5-VL, Qwen3-VL). */
  gridInput?: 'grid_thw' | 'image_grid_thw';
  patchSize?: number;
  mergeSize?: number;
  minPixels?: number;
  maxPixels?: number;
}

export interface TinyVlmWeights extends TinyHead {
  maxPositions: number;
  embed: Float32Array;
  posT: Float32Array;
  posH: Float32Array;
  posW: Float32Array;
  /** [merge² · patchDim, hidden]. */
  vision: Float32Array;
  patchDim: number;
  mergeSize: number;
}

export interface TinyVlmJudge {
  dir: string;
  weights: TinyVlmWeights;
  tokenizer: TinyTokenizer;
  preprocessor: Record<string, unknown>;
}

export function writeTinyVlmJudge(dir: string, opts: TinyVlmOptions = {}): TinyVlmJudge {
  const tokenizer = buildTinyTokenizer({ paddingSide: opts.paddingSide ?? 'right', ...(opts.padToken !== undefined ? { padToken: opts.padToken } : {}) });
  const d = tinyDims(opts, tokenizer.size);
  const ps = opts.patchSize ?? 4;
  const m = opts.mergeSize ?? 2;
  const tps = 2;
  const patchDim = 3 * tps * ps * ps;
  const rng = seeded(opts.seed ?? 2);
  const weights: TinyVlmWeights = {
    ...makeHead(rng, d.hidden, d.vocab),
    maxPositions: d.maxPositions,
    embed: uniform(rng, d.vocab * d.hidden, 2),
    posT: uniform(rng, d.maxPositions * d.hidden, 1),
    posH: uniform(rng, d.maxPositions * d.hidden, 1),
    posW: uniform(rng, d.maxPositions * d.hidden, 1),
    vision: uniform(rng, m * m * patchDim * d.hidden, 2 / Math.sqrt(m * m * patchDim)),
    patchDim,
    mergeSize: m,
  };
  fs.mkdirSync(path.join(dir, 'onnx'), { recursive: true });
  const grid = opts.gridInput ?? 'grid_thw';

  writeModel(
    path.join(dir, 'onnx', 'vision_encoder.onnx'),
    {
    name: 'owrl_tiny_vision_encoder',
    nodes: [
      { op: 'Reshape', inputs: ['pixel_values', 'group_shape'], outputs: ['groups'] },
      { op: 'MatMul', inputs: ['groups', 'wv'], outputs: ['proj'] },
      { op: 'Tanh', inputs: ['proj'], outputs: ['feat'] },
      { op: 'Slice', inputs: [grid, 'zero', 'one', 'one'], outputs: ['grid_t'] },
      { op: 'ReduceMax', inputs: ['grid_t'], outputs: ['grid_t_max'], attrs: { keepdims: 0 } },
      { op: 'Cast', inputs: ['grid_t_max'], outputs: ['grid_t_f'], attrs: { to: DType.FLOAT } },
      { op: 'Div', inputs: ['feat', 'grid_t_f'], outputs: ['image_features'] },
    ],
    initializers: [
      { name: 'group_shape', int64: [-1, m * m * patchDim], dims: [2] },
      { name: 'wv', float: weights.vision, dims: [m * m * patchDim, d.hidden] },
      { name: 'zero', int64: [0], dims: [1] },
      { name: 'one', int64: [1], dims: [1] },
    ],
    inputs: [
      { name: 'pixel_values', type: DType.FLOAT, dims: ['num_patches', patchDim] },
      { name: grid, type: DType.INT64, dims: ['num_images', 3] },
    ],
    outputs: [{ name: 'image_features', type: DType.FLOAT, dims: ['num_image_tokens', d.hidden] }],
    },
    graphWriteOptions('vision_encoder.onnx', opts),
  );

  writeModel(
    path.join(dir, 'onnx', 'embed_tokens.onnx'),
    {
    name: 'owrl_tiny_embed_tokens',
    nodes: [{ op: 'Gather', inputs: ['embed', 'input_ids'], outputs: ['inputs_embeds'] }],
    initializers: [{ name: 'embed', float: weights.embed, dims: [d.vocab, d.hidden] }],
    inputs: [{ name: 'input_ids', type: DType.INT64, dims: ['batch_size', 'sequence_length'] }],
    outputs: [{ name: 'inputs_embeds', type: DType.FLOAT, dims: ['batch_size', 'sequence_length', d.hidden] }],
    },
    graphWriteOptions('embed_tokens.onnx', opts),
  );

  const g: GraphSpec = {
    name: 'owrl_tiny_vlm_decoder',
    nodes: [],
    initializers: [
      { name: 'pos_t', float: weights.posT, dims: [d.maxPositions, d.hidden] },
      { name: 'pos_h', float: weights.posH, dims: [d.maxPositions, d.hidden] },
      { name: 'pos_w', float: weights.posW, dims: [d.maxPositions, d.hidden] },
    ],
    inputs: [
      { name: 'inputs_embeds', type: DType.FLOAT, dims: ['batch_size', 'sequence_length', d.hidden] },
      { name: 'position_ids', type: DType.INT64, dims: [3, 'batch_size', 'sequence_length'] },
    ],
    outputs: [],
  };
  ['t', 'h', 'w'].forEach((axis, i) => {
    g.initializers.push({ name: `axis_index_${axis}`, int64: [i], dims: [] });
    g.nodes.push(
      { op: 'Gather', inputs: ['position_ids', `axis_index_${axis}`], outputs: [`pos_ids_${axis}`], attrs: { axis: 0 } },
      { op: 'Gather', inputs: [`pos_${axis}`, `pos_ids_${axis}`], outputs: [`posv_${axis}`] },
    );
  });
  g.nodes.push(
    { op: 'Add', inputs: ['inputs_embeds', 'posv_t'], outputs: ['x_t'] },
    { op: 'Add', inputs: ['x_t', 'posv_h'], outputs: ['x_th'] },
    { op: 'Add', inputs: ['x_th', 'posv_w'], outputs: ['x'] },
  );
  addHead(g, {
    tokens: 'x',
    layers: d.layers,
    kvHeads: d.kvHeads,
    headDim: d.headDim,
    kvDims: ['num_key_value_heads', 'head_dim'],
    float16: opts.float16 ?? false,
    numLogitsToKeep: opts.numLogitsToKeep ?? false,
    head: weights,
  });
  writeModel(path.join(dir, 'onnx', 'decoder_model_merged.onnx'), g, graphWriteOptions('decoder_model_merged.onnx', opts));

  const preprocessor = {
    processor_class: 'Qwen2VLProcessor',
    image_processor_type: 'Qwen2VLImageProcessor',
    patch_size: ps,
    merge_size: m,
    temporal_patch_size: tps,
    image_mean: [0.48145466, 0.4578275, 0.40821073],
    image_std: [0.26862954, 0.26130258, 0.27577711],
    min_pixels: opts.minPixels ?? 16 * 16,
    max_pixels: opts.maxPixels ?? 64 * 64,
    do_resize: true,
    // PIL bicubic, as Qwen2-VL ships it (the judge resizes bilinearly; see README.md)
    resample: 3,
    do_rescale: true,
    rescale_factor: 1 / 255,
    do_normalize: true,
    do_convert_rgb: true,
  };
  writeJson(dir, 'preprocessor_config.json', preprocessor);
  // Qwen2-VL's config.json: the text model's fields at the top, the vision tower in vision_config
  writeJson(dir, 'config.json', {
    model_type: 'qwen2_vl',
    architectures: ['Qwen2VLForConditionalGeneration'],
    vocab_size: d.vocab,
    hidden_size: d.hidden,
    intermediate_size: d.hidden,
    num_hidden_layers: d.layers,
    num_attention_heads: d.kvHeads,
    num_key_value_heads: d.kvHeads,
    max_position_embeddings: d.maxPositions,
    rms_norm_eps: 1e-6,
    rope_theta: 1_000_000,
    rope_scaling: { type: 'mrope', mrope_section: [1, 1, 2] },
    tie_word_embeddings: false,
    torch_dtype: opts.float16 ? 'float16' : 'float32',
    bos_token_id: tokenizer.ids['<|endoftext|>'],
    eos_token_id: tokenizer.ids['<|im_end|>'],
    image_token_id: tokenizer.ids['<|image_pad|>'],
    video_token_id: tokenizer.ids['<|video_pad|>'],
    vision_start_token_id: tokenizer.ids['<|vision_start|>'],
    vision_end_token_id: tokenizer.ids['<|vision_end|>'],
    vision_config: {
      depth: 1,
      embed_dim: m * m * patchDim,
      hidden_size: d.hidden,
      in_chans: 3,
      patch_size: ps,
      spatial_merge_size: m,
      temporal_patch_size: tps,
    },
  });
  writeJson(dir, 'tokenizer.json', tokenizer.tokenizerJson);
  writeJson(dir, 'tokenizer_config.json', tokenizer.tokenizerConfig);
  writeJson(dir, OWRL_JUDGE_FILE, { layout: 'vlm', yes_token: 'yes', no_token: 'no', threshold: 0.5, ...opts.judge });
  return { dir, weights, tokenizer, preprocessor };
}
