// The judge model folder (see README.md): config.json, tokenizer.json, tokenizer_config.json,
// optional preprocessor_config.json, the owrl file owrl_judge.json and the ONNX graphs under onnx/.
// Reads and validates everything except the graphs themselves, with errors naming file and field.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { JudgeModelError, JudgeModelErrorCode } from './errors.js';

export type JudgeLayout = 'decoder' | 'vlm';

export const OWRL_JUDGE_FILE = 'owrl_judge.json';
export const DEFAULT_SYSTEM_PROMPT =
  'You judge whether a web agent completed its task. Read the task, the agent\'s steps and its final answer, and answer with one word: yes or no.';
export const DEFAULT_QUESTION = 'Did the agent complete the task? Answer yes or no.';
export const DEFAULT_MAX_PROMPT_TOKENS = 4096;

/** owrl_judge.json, with defaults applied. */
export interface OwrlJudgeConfig {
  layout: JudgeLayout;
  yesToken: string;
  noToken: string;
  threshold: number;
  /** Reported as the judge version; a content hash of the folder when absent. */
  version?: string;
  /** Unset: min(DEFAULT_MAX_PROMPT_TOKENS, max_position_embeddings). */
  maxPromptTokens?: number;
  prompt: { system: string; question: string; screenshot: boolean };
  /** vlm: the image placeholder token the chat template emits once per image. */
  imageToken?: string;
  /** Paths of the graphs relative to the folder. */
  onnx: { model: string; visionEncoder: string; embedTokens: string; decoder: string };
}

export interface TokenizerConfig {
  chatTemplate: string;
  padToken?: string;
  eosToken?: string;
  bosToken?: string;
  paddingSide: 'left' | 'right';
  /** The parsed file, handed to @huggingface/tokenizers. */
  raw: Record<string, unknown>;
}

/** Qwen2-VL style image preprocessing (preprocessor_config.json). */
export interface PreprocessorConfig {
  patchSize: number;
  mergeSize: number;
  temporalPatchSize: number;
  mean: [number, number, number];
  std: [number, number, number];
  minPixels: number;
  maxPixels: number;
  rescaleFactor: number;
  doRescale: boolean;
  doNormalize: boolean;
  doResize: boolean;
}

/** The fields of config.json the runtime uses (the text config of a VLM). */
export interface TextConfig {
  numKeyValueHeads?: number;
  headDim?: number;
  maxPositionEmbeddings?: number;
  imageTokenId?: number;
}

export interface ModelFolder {
  dir: string;
  judge: OwrlJudgeConfig;
  text: TextConfig;
  tokenizerJson: Record<string, unknown>;
  tokenizer: TokenizerConfig;
  preprocessor?: PreprocessorConfig;
}

type Json = Record<string, unknown>;

function invalid(message: string): JudgeModelError {
  return new JudgeModelError(JudgeModelErrorCode.InvalidModel, message);
}

function readJson(dir: string, name: string, required: true): Json;
function readJson(dir: string, name: string, required: false): Json | undefined;
function readJson(dir: string, name: string, required: boolean): Json | undefined {
  const file = path.join(dir, name);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (cause) {
    if (!required && (cause as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new JudgeModelError(JudgeModelErrorCode.InvalidModel, `cannot read ${file}: ${(cause as Error).message}`, { cause });
  }
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (cause) {
    throw new JudgeModelError(JudgeModelErrorCode.InvalidModel, `${file} is not valid JSON: ${(cause as Error).message}`, { cause });
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw invalid(`${file} must hold a JSON object`);
  return v as Json;
}

function str(o: Json, key: string, where: string): string | undefined {
  const v = o[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw invalid(`${where}: "${key}" must be a string, got ${JSON.stringify(v)}`);
  return v;
}

function num(o: Json, key: string, where: string): number | undefined {
  const v = o[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v)) throw invalid(`${where}: "${key}" must be a number, got ${JSON.stringify(v)}`);
  return v;
}

function posInt(o: Json, key: string, where: string): number | undefined {
  const v = num(o, key, where);
  if (v !== undefined && (!Number.isInteger(v) || v <= 0)) throw invalid(`${where}: "${key}" must be a positive integer, got ${v}`);
  return v;
}

function bool(o: Json, key: string, where: string): boolean | undefined {
  const v = o[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'boolean') throw invalid(`${where}: "${key}" must be true or false, got ${JSON.stringify(v)}`);
  return v;
}

function obj(o: Json, key: string, where: string): Json | undefined {
  const v = o[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'object' || Array.isArray(v)) throw invalid(`${where}: "${key}" must be an object`);
  return v as Json;
}

function onlyKeys(o: Json, allowed: readonly string[], where: string): void {
  for (const k of Object.keys(o)) {
    if (!allowed.includes(k)) throw invalid(`${where}: unknown field "${k}" (allowed: ${allowed.join(', ')})`);
  }
}

/** A token field of tokenizer_config.json: a string or an AddedToken object {content}. */
function tokenField(o: Json, key: string, where: string): string | undefined {
  const v = o[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'string') return v;
  if (typeof v === 'object' && typeof (v as Json)['content'] === 'string') return (v as Json)['content'] as string;
  throw invalid(`${where}: "${key}" must be a string or {"content": string}, got ${JSON.stringify(v)}`);
}

export function parseOwrlJudge(o: Json, where = OWRL_JUDGE_FILE): OwrlJudgeConfig {
  onlyKeys(o, ['layout', 'yes_token', 'no_token', 'threshold', 'version', 'max_prompt_tokens', 'prompt', 'image_token', 'onnx'], where);
  const layout = o['layout'];
  if (layout !== 'decoder' && layout !== 'vlm') throw invalid(`${where}: "layout" must be "decoder" or "vlm", got ${JSON.stringify(layout)}`);
  const threshold = num(o, 'threshold', where) ?? 0.5;
  if (threshold < 0 || threshold > 1) throw invalid(`${where}: "threshold" must be within [0, 1], got ${threshold}`);
  const prompt = obj(o, 'prompt', where) ?? {};
  onlyKeys(prompt, ['system', 'question', 'screenshot'], `${where} prompt`);
  const files = obj(o, 'onnx', where) ?? {};
  onlyKeys(files, ['model', 'vision_encoder', 'embed_tokens', 'decoder'], `${where} onnx`);
  const yesToken = str(o, 'yes_token', where) ?? 'yes';
  const noToken = str(o, 'no_token', where) ?? 'no';
  if (yesToken === '' || noToken === '' || yesToken === noToken) {
    throw invalid(`${where}: "yes_token" and "no_token" must be two different non-empty strings, got ${JSON.stringify(yesToken)} and ${JSON.stringify(noToken)}`);
  }
  const version = str(o, 'version', where);
  const imageToken = str(o, 'image_token', where);
  const maxPromptTokens = posInt(o, 'max_prompt_tokens', where);
  return {
    layout,
    yesToken,
    noToken,
    threshold,
    ...(version !== undefined && version !== '' ? { version } : {}),
    ...(maxPromptTokens !== undefined ? { maxPromptTokens } : {}),
    prompt: {
      system: str(prompt, 'system', `${where} prompt`) ?? DEFAULT_SYSTEM_PROMPT,
      question: str(prompt, 'question', `${where} prompt`) ?? DEFAULT_QUESTION,
      screenshot: bool(prompt, 'screenshot', `${where} prompt`) ?? true,
    },
    ...(imageToken !== undefined ? { imageToken } : {}),
    onnx: {
      model: str(files, 'model', `${where} onnx`) ?? 'onnx/model.onnx',
      visionEncoder: str(files, 'vision_encoder', `${where} onnx`) ?? 'onnx/vision_encoder.onnx',
      embedTokens: str(files, 'embed_tokens', `${where} onnx`) ?? 'onnx/embed_tokens.onnx',
      decoder: str(files, 'decoder', `${where} onnx`) ?? 'onnx/decoder_model_merged.onnx',
    },
  };
}

function parseTokenizerConfig(o: Json, where: string): TokenizerConfig {
  let chatTemplate = o['chat_template'];
  // Some exports hold a list of named templates; the judge uses the default one.
  if (Array.isArray(chatTemplate)) {
    const named = chatTemplate.find((t: unknown) => typeof t === 'object' && t !== null && (t as Json)['name'] === 'default') as Json | undefined;
    chatTemplate = named?.['template'];
  }
  if (typeof chatTemplate !== 'string' || chatTemplate === '') {
    throw invalid(`${where}: "chat_template" is missing; the judge renders its prompt with the model's chat template`);
  }
  const side = o['padding_side'] ?? 'right';
  if (side !== 'left' && side !== 'right') throw invalid(`${where}: "padding_side" must be "left" or "right", got ${JSON.stringify(side)}`);
  const padToken = tokenField(o, 'pad_token', where);
  const eosToken = tokenField(o, 'eos_token', where);
  const bosToken = tokenField(o, 'bos_token', where);
  return {
    chatTemplate,
    paddingSide: side,
    ...(padToken !== undefined ? { padToken } : {}),
    ...(eosToken !== undefined ? { eosToken } : {}),
    ...(bosToken !== undefined ? { bosToken } : {}),
    raw: o,
  };
}

function triple(o: Json, key: string, where: string): [number, number, number] {
  const v = o[key];
  if (!Array.isArray(v) || v.length !== 3 || !v.every((x) => typeof x === 'number' && Number.isFinite(x))) {
    throw invalid(`${where}: "${key}" must be a list of 3 numbers (one per RGB channel), got ${JSON.stringify(v)}`);
  }
  return [v[0] as number, v[1] as number, v[2] as number];
}

export function parsePreprocessor(o: Json, where = 'preprocessor_config.json'): PreprocessorConfig {
  const size = obj(o, 'size', where) ?? {};
  const minPixels = posInt(o, 'min_pixels', where) ?? posInt(size, 'shortest_edge', `${where} size`) ?? 56 * 56;
  const maxPixels = posInt(o, 'max_pixels', where) ?? posInt(size, 'longest_edge', `${where} size`) ?? 14 * 14 * 4 * 16384;
  if (minPixels > maxPixels) throw invalid(`${where}: min_pixels ${minPixels} exceeds max_pixels ${maxPixels}`);
  const std = triple(o, 'image_std', where);
  if (std.some((s) => s === 0)) throw invalid(`${where}: "image_std" must not contain 0, got ${JSON.stringify(std)}`);
  return {
    patchSize: posInt(o, 'patch_size', where) ?? 14,
    mergeSize: posInt(o, 'merge_size', where) ?? 2,
    temporalPatchSize: posInt(o, 'temporal_patch_size', where) ?? 2,
    mean: triple(o, 'image_mean', where),
    std,
    minPixels,
    maxPixels,
    rescaleFactor: num(o, 'rescale_factor', where) ?? 1 / 255,
    doRescale: bool(o, 'do_rescale', where) ?? true,
    doNormalize: bool(o, 'do_normalize', where) ?? true,
    doResize: bool(o, 'do_resize', where) ?? true,
  };
}

function parseTextConfig(o: Json, where: string): TextConfig {
  const text = obj(o, 'text_config', where) ?? o;
  const heads = posInt(text, 'num_attention_heads', where);
  const hidden = posInt(text, 'hidden_size', where);
  const headDim = posInt(text, 'head_dim', where) ?? (heads !== undefined && hidden !== undefined ? hidden / heads : undefined);
  const kv = posInt(text, 'num_key_value_heads', where) ?? heads;
  const maxPos = posInt(text, 'max_position_embeddings', where);
  const imageTokenId = num(o, 'image_token_id', where) ?? num(text, 'image_token_id', where);
  return {
    ...(kv !== undefined ? { numKeyValueHeads: kv } : {}),
    ...(headDim !== undefined && Number.isInteger(headDim) ? { headDim } : {}),
    ...(maxPos !== undefined ? { maxPositionEmbeddings: maxPos } : {}),
    ...(imageTokenId !== undefined ? { imageTokenId } : {}),
  };
}

/**
 * Reads a judge model folder.
 * @throws JudgeModelError JUDGE_MODEL_INVALID_MODEL naming the file and field that is wrong.
 */
export function readModelFolder(dir: string): ModelFolder {
  const abs = path.resolve(dir);
  if (!fs.existsSync(abs) || !fs.statSync(abs).isDirectory()) throw invalid(`model folder ${abs} does not exist or is not a folder`);
  const judge = parseOwrlJudge(readJson(abs, OWRL_JUDGE_FILE, true));
  const text = parseTextConfig(readJson(abs, 'config.json', true), 'config.json');
  const tokenizerJson = readJson(abs, 'tokenizer.json', true);
  const tokenizer = parseTokenizerConfig(readJson(abs, 'tokenizer_config.json', true), 'tokenizer_config.json');
  const pre = readJson(abs, 'preprocessor_config.json', false);
  if (judge.layout === 'vlm' && pre === undefined) throw invalid(`${abs}: layout "vlm" needs preprocessor_config.json (patch size, mean, std)`);
  const graphs = judge.layout === 'decoder' ? [judge.onnx.model] : [judge.onnx.visionEncoder, judge.onnx.embedTokens, judge.onnx.decoder];
  for (const g of graphs) {
    if (!fs.existsSync(path.join(abs, g))) throw invalid(`${abs}: layout "${judge.layout}" needs ${g}, which is missing`);
  }
  return {
    dir: abs,
    judge,
    text,
    tokenizerJson,
    tokenizer,
    ...(pre !== undefined ? { preprocessor: parsePreprocessor(pre) } : {}),
  };
}

/** The graph files of a folder, absolute. */
export function graphPaths(folder: ModelFolder): { model: string; visionEncoder: string; embedTokens: string; decoder: string } {
  const p = (f: string) => path.join(folder.dir, f);
  return { model: p(folder.judge.onnx.model), visionEncoder: p(folder.judge.onnx.visionEncoder), embedTokens: p(folder.judge.onnx.embedTokens), decoder: p(folder.judge.onnx.decoder) };
}

function listFiles(dir: string, rel = ''): string[] {
  return fs
    .readdirSync(path.join(dir, rel), { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? listFiles(dir, path.join(rel, e.name)) : e.isFile() ? [path.join(rel, e.name)] : []))
    .sort();
}

/**
 * Content hash of every file in the folder (names and bytes, streamed so that a multi-GB model
 * does not block the event loop), as `sha256:<12 hex>`: the judge version when owrl_judge.json
 * names none.
 */
export async function hashModelFolder(dir: string): Promise<string> {
  const h = createHash('sha256');
  for (const rel of listFiles(dir)) {
    h.update(`${rel.split(path.sep).join('/')}\0`);
    for await (const chunk of fs.createReadStream(path.join(dir, rel))) h.update(chunk as Buffer);
    h.update('\0');
  }
  return `sha256:${h.digest('hex').slice(0, 12)}`;
}
