// @owrl/judge-model/testing: tiny judge model builders — complete model folders (decoder and
// vision-language layouts, tokenizer, chat template) with hand-computable logits — for tests and
// the judge benchmark. Not part of the judge's API (the main entry).
export {
  writeTinyDecoderJudge,
} from './tiny/decoder.js';
export type {
  TinyDecoderJudge,
  TinyDecoderWeights,
} from './tiny/decoder.js';
export {
  writeTinyVlmJudge,
} from './tiny/vlm.js';
export type {
  TinyVlmJudge,
  TinyVlmOptions,
  TinyVlmWeights,
} from './tiny/vlm.js';
export type {
  TinyCommonOptions,
  TinyHead,
} from './tiny/common.js';
export {
  buildTinyTokenizer,
  TINY_CHAT_TEMPLATE,
  TINY_SPECIAL_TOKENS,
} from './tiny/tokenizer.js';
export type {
  TinyTokenizer,
} from './tiny/tokenizer.js';
export {
  writeGeneratedJudge,
  parseDecoderShape,
  decoderParams,
} from './tiny/generated.js';
export type {
  DecoderShape,
  GeneratedJudge,
  GeneratedJudgeOptions,
} from './tiny/generated.js';
export {
  probeGraphBytes,
} from './tiny/onnx.js';
