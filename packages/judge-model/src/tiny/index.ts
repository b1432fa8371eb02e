// Tiny judge model builders (complete model folders with hand-computable logits) for tests and
// the judge benchmark.
export { writeTinyDecoderJudge, type TinyDecoderJudge, type TinyDecoderWeights } from './decoder.js';
export { writeTinyVlmJudge, type TinyVlmJudge, type TinyVlmOptions, type TinyVlmWeights } from './vlm.js';
export type { TinyCommonOptions, TinyHead } from './common.js';
export { buildTinyTokenizer, TINY_CHAT_TEMPLATE, TINY_SPECIAL_TOKENS, type TinyTokenizer } from './tokenizer.js';
