// transformers.js as an independent reference for the judge: the tiny folders the tests write are
// loaded by transformers.js as they are (a Qwen2 and a Qwen2-VL model: its own tokenizer, chat
// template, image processor, M-RoPE positions and the vision encoder fed `grid_thw`), and its
// P(yes) must equal the judge's on the same folder, decoder and VLM, one row and batched, with
// left and right padding. Local files only: transformers.js never goes to the network here.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { AutoModelForCausalLM, AutoProcessor, AutoTokenizer, cat, env, Qwen2VLForConditionalGeneration, RawImage, type Tensor } from '@huggingface/transformers';
import jpeg from 'jpeg-js';
import {
  buildMessages,
  decodeJpeg,
  DEFAULT_QUESTION,
  DEFAULT_SYSTEM_PROMPT,
  OnnxJudge,
  type JudgeInput,
} from '@owrl/judge-model';
import {
  writeTinyDecoderJudge,
  writeTinyVlmJudge,
} from '@owrl/judge-model/testing';
import { sampleInput, tempDir } from './helpers.js';

const root = tempDir('tjs');
after(() => fs.rmSync(root, { recursive: true, force: true }));
before(() => {
  env.allowRemoteModels = false;
  env.allowLocalModels = true;
  env.localModelPath = `${root}${path.sep}`;
  env.useFSCache = false;
});

/** Agreement required: the same float32 graphs on the same inputs, up to summation order. */
const EXACT = 1e-12;

function close(a: number[], b: number[], what: string): void {
  assert.equal(a.length, b.length, what);
  a.forEach((x, i) => assert.ok(Math.abs(x - (b[i] ?? NaN)) <= EXACT, `${what} row ${i}: transformers.js ${x}, judge ${b[i]}`));
}

/** A JPEG whose size needs no resizing (multiples of patch·merge = 8, within the pixel range). */
function screenshot(w: number, h: number, s: number): Uint8Array {
  const d = Buffer.alloc(w * h * 4);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = (y * w + x) * 4;
      d[i] = (x * s * 9) % 256;
      d[i + 1] = (y * 13 + s) % 256;
      d[i + 2] = (x * y + s * 50) % 256;
      d[i + 3] = 255;
    }
  }
  return new Uint8Array(jpeg.encode({ width: w, height: h, data: d }, 90).data);
}

interface Logits {
  logits: Tensor;
}

/** P(yes) per row from transformers.js logits [B, T|kept, V] at each row's last real token. */
function pYes(out: Logits, mask: bigint[][], yes: number, no: number): number[] {
  const [, t = 0, v = 0] = out.logits.dims;
  const data = out.logits.data as Float32Array;
  return mask.map((m, r) => {
    const last = m.lastIndexOf(1n) - ((m.length) - t);
    const base = (r * t + last) * v;
    return 1 / (1 + Math.exp((data[base + no] ?? NaN) - (data[base + yes] ?? NaN)));
  });
}

const rows: JudgeInput[] = [sampleInput(0, 1, '4'), sampleInput(2, 2), sampleInput(5, 3, 'not found')];

void describe('transformers.js agrees with the judge', () => {
  for (const side of ['left', 'right'] as const) {
    void it(`decoder layout, ${side} padding: one row and a batch`, async () => {
      const name = `decoder-${side}`;
      writeTinyDecoderJudge(path.join(root, name), { paddingSide: side, numLogitsToKeep: side === 'left' });
      const tok = await AutoTokenizer.from_pretrained(name, { local_files_only: true });
      const model = await AutoModelForCausalLM.from_pretrained(name, { dtype: 'fp32', local_files_only: true });
      const [yes = -1] = tok.encode('yes', { add_special_tokens: false });
      const [no = -1] = tok.encode('no', { add_special_tokens: false });
      const texts = rows.map(
        (x) => tok.apply_chat_template(buildMessages(x, { system: DEFAULT_SYSTEM_PROMPT, question: DEFAULT_QUESTION, image: false }) as never, { add_generation_prompt: true, tokenize: false }) as string,
      );
      const judge = await OnnxJudge.load({ modelDir: path.join(root, name), device: 'cpu', threads: 1 });
      try {
        const single: number[] = [];
        const ours1: number[] = [];
        for (const [i, text] of texts.entries()) {
          const enc = tok(text, { add_special_tokens: false });
          single.push(...pYes((await model(enc)) as Logits, (enc['attention_mask'] as Tensor).tolist() as bigint[][], yes, no));
          ours1.push(((await judge.scoreBatch([rows[i] as JudgeInput]))[0]?.pYes) ?? NaN);
        }
        close(single, ours1, 'one row');
        const enc = tok(texts, { padding: true, add_special_tokens: false });
        const batched = pYes((await model(enc)) as Logits, (enc['attention_mask'] as Tensor).tolist() as bigint[][], yes, no);
        close(batched, (await judge.scoreBatch(rows)).map((r) => r.pYes), 'batch');
        close(batched, single, 'batch vs one row (transformers.js)');
      } finally {
        await judge.close();
        await model.dispose();
      }
    });
  }

  for (const side of ['right', 'left'] as const) {
    void it(`Qwen2-VL layout (vision encoder fed grid_thw), ${side} padding: one row and a batch`, async () => {
      const name = `vlm-${side}`;
      writeTinyVlmJudge(path.join(root, name), { paddingSide: side, numLogitsToKeep: true });
      const cfg = JSON.parse(fs.readFileSync(path.join(root, name, 'config.json'), 'utf8')) as { model_type: string; vision_config: { spatial_merge_size: number } };
      assert.deepEqual([cfg.model_type, cfg.vision_config.spatial_merge_size], ['qwen2_vl', 2]);
      const proc = await AutoProcessor.from_pretrained(name, { local_files_only: true });
      const model = await Qwen2VLForConditionalGeneration.from_pretrained(name, { dtype: 'fp32', local_files_only: true });
      const tok = proc.tokenizer as NonNullable<typeof proc.tokenizer>;
      const [yes = -1] = tok.encode('yes', { add_special_tokens: false });
      const [no = -1] = tok.encode('no', { add_special_tokens: false });
      const sizes: Array<[number, number]> = [
        [32, 24],
        [40, 32],
        [24, 24],
      ];
      const withShots = rows.map((r, i) => ({ ...r, screenshot: screenshot(...(sizes[i] ?? [8, 8]), i + 1) }));
      // the same decoded pixels for both: this compares processors and models, not JPEG decoders
      const images = withShots.map((r) => {
        const im = decodeJpeg(r.screenshot);
        return new RawImage(new Uint8ClampedArray(im.data), im.width, im.height, 3);
      });
      const texts = withShots.map(
        (x) => tok.apply_chat_template(buildMessages(x, { system: DEFAULT_SYSTEM_PROMPT, question: DEFAULT_QUESTION, image: true }) as never, { add_generation_prompt: true, tokenize: false }) as string,
      );
      const judge = await OnnxJudge.load({ modelDir: path.join(root, name), device: 'cpu', threads: 1 });
      try {
        const single: number[] = [];
        const ours1: number[] = [];
        for (const [i, text] of texts.entries()) {
          const inputs = (await proc(text, images[i])) as Record<string, Tensor>;
          single.push(...pYes((await model(inputs)) as Logits, (inputs['attention_mask'] as Tensor).tolist() as bigint[][], yes, no));
          ours1.push(((await judge.scoreBatch([withShots[i] as JudgeInput]))[0]?.pYes) ?? NaN);
        }
        close(single, ours1, 'one row');
        // a batch: transformers.js' processor neither pads text nor stacks images of different
        // sizes, so its pieces are used one by one: image processor per image, placeholders
        // expanded as the processor does, the tokenizer pads
        const imageProcessor = proc.image_processor ?? assert.fail('the processor has no image processor');
        const per: Array<Record<string, Tensor>> = [];
        for (const im of images) per.push((await imageProcessor(im)) as Record<string, Tensor>);
        const grids = per.map((p) => (p['image_grid_thw'] as Tensor).tolist()[0] as bigint[]);
        const expanded = texts.map((t, i) => t.replace('<|image_pad|>', '<|image_pad|>'.repeat(Number((grids[i] ?? []).reduce((a, b) => a * b, 1n)) / 4)));
        const enc = tok(expanded, { padding: true, add_special_tokens: false });
        const out = (await model({
          ...enc,
          pixel_values: cat(per.map((p) => p['pixel_values'] as Tensor), 0),
          image_grid_thw: cat(per.map((p) => p['image_grid_thw'] as Tensor), 0),
        })) as Logits;
        const batched = pYes(out, (enc['attention_mask'] as Tensor).tolist() as bigint[][], yes, no);
        close(batched, (await judge.scoreBatch(withShots)).map((r) => r.pYes), 'batch');
        close(batched, single, 'batch vs one row (transformers.js)');
      } finally {
        await judge.close();
        await model.dispose();
      }
    });
  }

  void it('the judge also reads the Qwen2.5-VL / Qwen3-VL naming of the grid input (image_grid_thw)', async () => {
    const a = writeTinyVlmJudge(path.join(root, 'grid-a'), { gridInput: 'grid_thw' });
    const b = writeTinyVlmJudge(path.join(root, 'grid-b'), { gridInput: 'image_grid_thw' });
    const input = { ...sampleInput(1, 4), screenshot: screenshot(32, 24, 9) };
    const pa = await OnnxJudge.load({ modelDir: a.dir, device: 'cpu', threads: 1 });
    const pb = await OnnxJudge.load({ modelDir: b.dir, device: 'cpu', threads: 1 });
    try {
      const [ra] = await pa.scoreBatch([input]);
      const [rb] = await pb.scoreBatch([input]);
      assert.ok(ra && rb);
      assert.equal(ra.pYes, rb.pYes);
      assert.notEqual(ra.pYes, 0.5);
    } finally {
      await pa.close();
      await pb.close();
    }
  });
});
