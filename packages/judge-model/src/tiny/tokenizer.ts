// A tiny byte-level BPE tokenizer in the Hugging Face tokenizer.json format (the kind Qwen and
// GPT-2 use): the 256 byte symbols, merges that make a short list of words single tokens ("yes"
// and "no" first), chat special tokens, and a tokenizer_config.json with a ChatML chat template.

/** Special tokens of the tiny tokenizers, in id order after the BPE vocabulary. */
export const TINY_SPECIAL_TOKENS = ['<|endoftext|>', '<|im_start|>', '<|im_end|>', '<|vision_start|>', '<|vision_end|>', '<|image_pad|>', '<|video_pad|>'] as const;

/** Words merged into single tokens (with and without a leading space where it matters). */
const WORDS = [
  'yes', 'no', 'Ġyes', 'Ġno', 'Task', 'Step', 'Action', 'Reasoning', 'Page', 'Final', 'Ġanswer', 'Ġthe', 'Ġagent', 'Ġtask',
  'Ġcomplete', 'Did', 'ĠAnswer', 'Ġor', 'click', 'write', 'scroll', 'done', 'Ġok', 'Ġfailed', 'Ġnavigated', 'Ġto', 'Ġprice',
  'Ġfind', 'Ġshop', 'system', 'user', 'assistant', 'Ġsteps', 'Ġscreenshot', 'ĠStart', 'Ġpage',
];

/** ChatML template: string content, or a list of text and image parts (image → vision placeholder). */
export const TINY_CHAT_TEMPLATE =
  '{%- for message in messages -%}' +
  '<|im_start|>{{ message.role }}\n' +
  '{% if message.content is string %}{{ message.content }}' +
  '{% else %}{% for part in message.content %}' +
  "{% if part.type == 'image' %}<|vision_start|><|image_pad|><|vision_end|>{% elif part.type == 'text' %}{{ part.text }}{% endif %}" +
  '{% endfor %}{% endif %}<|im_end|>\n' +
  '{% endfor -%}' +
  '{%- if add_generation_prompt %}<|im_start|>assistant\n{% endif -%}';

/** GPT-2's byte → printable character table used by byte-level BPE. */
function byteSymbols(): string[] {
  const printable = (b: number) => (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255);
  const out: string[] = [];
  let extra = 0;
  for (let b = 0; b < 256; b++) out.push(String.fromCharCode(printable(b) ? b : 256 + extra++));
  return out;
}

export interface TinyTokenizer {
  tokenizerJson: Record<string, unknown>;
  tokenizerConfig: Record<string, unknown>;
  /** Vocabulary size including the special tokens. */
  size: number;
  ids: Record<(typeof TINY_SPECIAL_TOKENS)[number], number>;
}

export function buildTinyTokenizer(opts: { paddingSide: 'left' | 'right'; padToken?: string | null }): TinyTokenizer {
  const vocab: Record<string, number> = {};
  const add = (t: string) => {
    if (!(t in vocab)) vocab[t] = Object.keys(vocab).length;
  };
  byteSymbols().forEach(add);
  const merges: Array<[string, string]> = [];
  const seen = new Set<string>();
  for (const word of WORDS) {
    const chars = Array.from(word);
    let left = chars[0] ?? '';
    for (const c of chars.slice(1)) {
      const key = `${left} ${c}`;
      if (!seen.has(key)) {
        seen.add(key);
        merges.push([left, c]);
      }
      left += c;
      add(left);
    }
  }
  const base = Object.keys(vocab).length;
  const ids = Object.fromEntries(TINY_SPECIAL_TOKENS.map((t, i) => [t, base + i])) as TinyTokenizer['ids'];
  const tokenizerJson = {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: TINY_SPECIAL_TOKENS.map((content, i) => ({
      id: base + i,
      content,
      single_word: false,
      lstrip: false,
      rstrip: false,
      normalized: false,
      special: true,
    })),
    normalizer: { type: 'NFC' },
    pre_tokenizer: { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true },
    post_processor: { type: 'ByteLevel', add_prefix_space: false, trim_offsets: false, use_regex: true },
    decoder: { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true },
    model: {
      type: 'BPE',
      dropout: null,
      unk_token: null,
      continuing_subword_prefix: '',
      end_of_word_suffix: '',
      fuse_unk: false,
      byte_fallback: false,
      ignore_merges: false,
      vocab,
      merges,
    },
  };
  const padToken = opts.padToken === undefined ? '<|endoftext|>' : opts.padToken;
  const tokenizerConfig = {
    add_bos_token: false,
    add_prefix_space: false,
    bos_token: null,
    eos_token: '<|im_end|>',
    ...(padToken !== null ? { pad_token: padToken } : {}),
    padding_side: opts.paddingSide,
    model_max_length: 32768,
    clean_up_tokenization_spaces: false,
    chat_template: TINY_CHAT_TEMPLATE,
    tokenizer_class: 'Qwen2Tokenizer',
  };
  return { tokenizerJson, tokenizerConfig, size: base + TINY_SPECIAL_TOKENS.length, ids };
}
