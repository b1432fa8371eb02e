// Tokenizer and prompt encoding: @huggingface/tokenizers built from the folder's tokenizer files,
// the chat template rendered with @huggingface/jinja (generation prompt on), the yes/no token ids
// (each must be one token), and the fit to max_prompt_tokens (oldest steps dropped first).
import { Template } from '@huggingface/jinja';
import { Tokenizer } from '@huggingface/tokenizers';
import { JudgeModelError, JudgeModelErrorCode } from './errors.js';
import type { ModelFolder } from './folder.js';
import { buildMessages, mapInputText, type ChatMessage, type JudgeInput, type PromptOptions, type Shortening } from './prompt.js';
import { shortenToFit } from './prompt-fit.js';

export const DEFAULT_IMAGE_TOKEN = '<|image_pad|>';

/** One encoded prompt. */
export interface EncodedPrompt {
  /** Token ids, with the image placeholder already expanded to `imageTokens` copies. */
  ids: number[];
  dropSteps: number;
  clipChars?: number;
}

export class JudgeTokenizer {
  readonly yesId: number;
  readonly noId: number;
  readonly padId: number;
  readonly paddingSide: 'left' | 'right';
  /** vlm: id of the image placeholder token. */
  readonly imageTokenId: number | undefined;
  private readonly tokenizer: Tokenizer;
  private readonly template: Template;
  private readonly specials: Record<string, string>;
  private readonly specialPattern: RegExp | undefined;

  /** @throws JudgeModelError JUDGE_MODEL_INVALID_MODEL for an unusable tokenizer or template. */
  constructor(private readonly folder: ModelFolder) {
    const { tokenizer: cfg, judge } = folder;
    try {
      this.tokenizer = new Tokenizer(folder.tokenizerJson, cfg.raw);
    } catch (cause) {
      throw new JudgeModelError(JudgeModelErrorCode.InvalidModel, `tokenizer.json cannot be loaded: ${(cause as Error).message}`, { cause });
    }
    try {
      this.template = new Template(cfg.chatTemplate);
    } catch (cause) {
      throw new JudgeModelError(JudgeModelErrorCode.InvalidModel, `tokenizer_config.json chat_template does not parse: ${(cause as Error).message}`, { cause });
    }
    this.yesId = this.singleToken(judge.yesToken, 'yes_token');
    this.noId = this.singleToken(judge.noToken, 'no_token');
    const padName = cfg.padToken ?? cfg.eosToken;
    const pad = padName !== undefined ? this.tokenizer.token_to_id(padName) : undefined;
    if (pad === undefined) {
      throw new JudgeModelError(
        JudgeModelErrorCode.InvalidModel,
        `tokenizer_config.json: no usable pad token (pad_token ${JSON.stringify(cfg.padToken)}, eos_token ${JSON.stringify(cfg.eosToken)} are not in the vocabulary)`,
      );
    }
    this.padId = pad;
    this.paddingSide = cfg.paddingSide;
    this.specials = {
      ...(cfg.bosToken !== undefined ? { bos_token: cfg.bosToken } : {}),
      ...(cfg.eosToken !== undefined ? { eos_token: cfg.eosToken } : {}),
      ...(cfg.padToken !== undefined ? { pad_token: cfg.padToken } : {}),
    };
    const specialTexts = ((folder.tokenizerJson['added_tokens'] ?? []) as Array<{ content?: unknown; special?: unknown }>)
      .filter((t) => t.special === true && typeof t.content === 'string' && t.content.length > 1)
      .map((t) => t.content as string);
    this.specialPattern =
      specialTexts.length > 0 ? new RegExp(specialTexts.map((t) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'g') : undefined;
    if (judge.layout === 'vlm') {
      const name = judge.imageToken ?? DEFAULT_IMAGE_TOKEN;
      const id = judge.imageToken === undefined && folder.text.imageTokenId !== undefined ? folder.text.imageTokenId : this.tokenizer.token_to_id(name);
      if (id === undefined) throw new JudgeModelError(JudgeModelErrorCode.InvalidModel, `owrl_judge.json: image token ${JSON.stringify(name)} is not in the vocabulary`);
      this.imageTokenId = id;
    } else {
      this.imageTokenId = undefined;
    }
  }

  private singleToken(text: string, field: string): number {
    const enc = this.tokenizer.encode(text, { add_special_tokens: false });
    const [id] = enc.ids;
    if (enc.ids.length !== 1 || id === undefined) {
      throw new JudgeModelError(
        JudgeModelErrorCode.InvalidModel,
        `owrl_judge.json: ${field} ${JSON.stringify(text)} encodes to ${enc.ids.length} tokens ${JSON.stringify(enc.tokens)} with this tokenizer; ` +
          'the judge reads one logit per answer, so it must be exactly one token',
      );
    }
    return id;
  }

  /** The chat template applied to `messages`, with the generation prompt. */
  render(messages: ChatMessage[]): string {
    try {
      return this.template.render({ messages, add_generation_prompt: true, ...this.specials });
    } catch (cause) {
      throw new JudgeModelError(JudgeModelErrorCode.InvalidModel, `chat_template failed to render the judge prompt: ${(cause as Error).message}`, { cause });
    }
  }

  /** Token ids of rendered text (the template already holds the special tokens). */
  encode(text: string): number[] {
    return this.tokenizer.encode(text, { add_special_tokens: false }).ids;
  }

  /** Token of an id, for diagnostics and tests. */
  idToToken(id: number): string | undefined {
    return this.tokenizer.id_to_token(id);
  }

  /**
   * Breaks up special-token strings ("<|im_end|>", "<|image_pad|>") in text the agent or a page
   * wrote, so that it cannot end the prompt's turn or add image placeholders: a space is put
   * after the first character.
   */
  neutralize(text: string): string {
    return this.specialPattern === undefined ? text : text.replace(this.specialPattern, (m) => `${m.slice(0, 1)} ${m.slice(1)}`);
  }

  /**
   * Encodes one judgement. With `imageTokens` > 0 the screenshot is in the prompt and its single
   * placeholder token is expanded to that many copies (one per merged image patch).
   */
  encodeWith(input: JudgeInput, opts: PromptOptions, cut: Shortening, imageTokens: number): EncodedPrompt {
    const ids = this.encode(this.render(buildMessages(input, opts, cut)));
    let out = ids;
    if (imageTokens > 0) {
      const at: number[] = [];
      ids.forEach((id, i) => id === this.imageTokenId && at.push(i));
      const [first] = at;
      if (at.length !== 1 || first === undefined) {
        throw new JudgeModelError(JudgeModelErrorCode.InvalidModel, `the chat template rendered ${at.length} image placeholder tokens for one screenshot; expected 1`);
      }
      out = [...ids.slice(0, first), ...new Array<number>(imageTokens).fill(ids[first] ?? 0), ...ids.slice(first + 1)];
    }
    return { ids: out, dropSteps: cut.dropSteps, ...(cut.clipChars !== undefined ? { clipChars: cut.clipChars } : {}) };
  }

  /**
   * Encodes one judgement within `maxTokens`: drops the oldest steps (fewest needed), and when no
   * step is left and it is still too long, clips the instruction and final answer.
   * @throws JudgeModelError JUDGE_MODEL_PROMPT_TOO_LONG when even the clipped prompt does not fit.
   */
  encodeFitting(untrusted: JudgeInput, opts: PromptOptions, maxTokens: number, imageTokens: number): EncodedPrompt {
    const input = mapInputText(untrusted, (s) => this.neutralize(s));
    const r = shortenToFit(input, (cut) => this.encodeWith(input, opts, cut, imageTokens), (e) => e.ids.length, maxTokens);
    if (r.fits) return r.value;
    throw new JudgeModelError(
      JudgeModelErrorCode.PromptTooLong,
      `the judge prompt needs ${r.bare.ids.length} tokens with no steps and an empty task and answer` +
        `${imageTokens > 0 ? ` (${imageTokens} of them for the screenshot)` : ''}; max_prompt_tokens is ${maxTokens}`,
    );
  }
}
