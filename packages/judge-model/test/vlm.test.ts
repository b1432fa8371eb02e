import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import {
  decodeJpeg,
  JudgeModelError,
  mropePositions,
  OnnxJudge,
  padBatch,
  parsePreprocessor,
  preprocessImage,
  smartResize,
  type JudgeInput,
  type PreprocessorConfig,
} from '@owrl/judge-model';
import {
  writeTinyVlmJudge,
  type TinyVlmJudge,
} from '@owrl/judge-model/testing';
import { add, headP, promptIds, row, sampleInput, tempDir, gradientJpeg } from './helpers.js';

const root = tempDir('vlm');
after(() => fs.rmSync(root, { recursive: true, force: true }));

let model: TinyVlmJudge;
let pre: PreprocessorConfig;
let judge: OnnxJudge;
before(async () => {
  model = writeTinyVlmJudge(path.join(root, 'vlm'), { paddingSide: 'right', numLogitsToKeep: true });
  pre = parsePreprocessor(model.preprocessor);
  judge = await OnnxJudge.load({ modelDir: model.dir, device: 'cpu', threads: 1 });
});
after(() => judge.close());

const screenshot = gradientJpeg;

/**
 * Hand computation for the tiny VLM: the image placeholder becomes one token per merged 2×2
 * patch block with features tanh(block · Wv); text keeps E[id]; positions are Qwen2-VL's: text
 * i on all axes, image tokens (s, s + row, s + col), text after the image from s + max(rows, cols).
 */
function handP(input: JudgeInput, m: TinyVlmJudge = model): { p: number; tokens: number } {
  const w = m.weights;
  const H = w.hidden;
  const vocab = (m.tokenizer.tokenizerJson['model'] as { vocab: Record<string, number> }).vocab;
  const imagePad = m.tokenizer.ids['<|image_pad|>'];
  const ids = promptIds(m.dir, input, { dropSteps: 0 }, input.screenshot !== undefined);
  const xs: Float64Array[] = [];
  const pos = (table: Float32Array, i: number) => row(table, i, H);
  const start = ids.indexOf(imagePad);
  let tokens = ids.length;
  if (start < 0) {
    ids.forEach((id, i) => xs.push(add(row(w.embed, id, H), pos(w.posT, i), pos(w.posH, i), pos(w.posW, i))));
    return { p: headP(w, xs, vocab['yes'] ?? -1, vocab['no'] ?? -1), tokens };
  }
  const im = preprocessImage(decodeJpeg(input.screenshot ?? new Uint8Array()), pre);
  const rows = im.grid[1] / 2;
  const cols = im.grid[2] / 2;
  const group = 4 * im.patchDim;
  for (let i = 0; i < start; i++) xs.push(add(row(w.embed, ids[i] ?? 0, H), pos(w.posT, i), pos(w.posH, i), pos(w.posW, i)));
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const g = r * cols + c;
      const f = new Float64Array(H);
      for (let k = 0; k < H; k++) {
        let s = 0;
        for (let j = 0; j < group; j++) s += (im.patches[g * group + j] ?? 0) * (w.vision[j * H + k] ?? 0);
        f[k] = Math.tanh(s);
      }
      xs.push(add(f, pos(w.posT, start), pos(w.posH, start + r), pos(w.posW, start + c)));
    }
  }
  let next = start + Math.max(1, rows, cols);
  for (let i = start + 1; i < ids.length; i++, next++) xs.push(add(row(w.embed, ids[i] ?? 0, H), pos(w.posT, next), pos(w.posH, next), pos(w.posW, next)));
  tokens += rows * cols - 1;
  return { p: headP(w, xs, vocab['yes'] ?? -1, vocab['no'] ?? -1), tokens };
}

void test('smart resize keeps multiples of patch × merge within the pixel bounds (Python rounding)', () => {
  assert.deepEqual(smartResize(30, 40, pre), [32, 40]);
  assert.deepEqual(smartResize(1000, 2000, pre), [40, 88]);
  assert.deepEqual(smartResize(5, 5, pre), [16, 16]);
  assert.deepEqual(smartResize(12, 20, pre), [16, 16], 'round half to even: 1.5 → 2, 2.5 → 2');
  assert.throws(() => smartResize(1, 400, pre), (e: unknown) => e instanceof JudgeModelError && e.code === 'JUDGE_MODEL_BAD_IMAGE');
});

void test('patches are normalized per channel and ordered merge block by merge block', () => {
  // 16×16 image, four 8×8 quadrants of one colour each = four 2×2 blocks of 4×4 patches.
  const colours = [
    [255, 0, 0],
    [0, 255, 0],
    [0, 0, 255],
    [40, 80, 120],
  ];
  const data = new Uint8Array(16 * 16 * 3);
  for (let y = 0; y < 16; y++) {
    for (let x = 0; x < 16; x++) data.set(colours[(y >= 8 ? 2 : 0) + (x >= 8 ? 1 : 0)] ?? [], (y * 16 + x) * 3);
  }
  const im = preprocessImage({ width: 16, height: 16, data }, pre);
  assert.deepEqual(im.grid, [1, 4, 4]);
  assert.equal(im.numPatches, 16);
  assert.equal(im.patchDim, 3 * 2 * 4 * 4);
  assert.equal(im.tokens, 4);
  for (let k = 0; k < 16; k++) {
    const colour = colours[Math.floor(k / 4)] ?? [];
    for (let c = 0; c < 3; c++) {
      const want = ((colour[c] ?? 0) / 255 - (pre.mean[c] ?? 0)) / (pre.std[c] ?? 1);
      const part = im.patches.subarray(k * im.patchDim + c * 32, k * im.patchDim + (c + 1) * 32);
      assert.ok(
        part.every((v) => Math.abs(v - want) < 1e-5),
        `patch ${k} channel ${c}: ${part[0]} vs ${want}`,
      );
    }
  }
});

void test('M-RoPE position ids follow Qwen2-VL: image tokens on a (t, h, w) grid, padding masked', () => {
  const IMG = 9;
  const p = padBatch([[1, 2, 3, IMG, IMG, IMG, IMG, 4, 5], [6, 7]], 0, 'left');
  const pos = mropePositions(p, [{ row: 0, start: 3, grid: [1, 2, 2] }]);
  const axis = (a: number, r: number) => Array.from(pos.subarray(a * 18 + r * 9, a * 18 + r * 9 + 9), Number);
  assert.deepEqual(axis(0, 0), [0, 1, 2, 3, 3, 3, 3, 5, 6]);
  assert.deepEqual(axis(1, 0), [0, 1, 2, 3, 3, 4, 4, 5, 6]);
  assert.deepEqual(axis(2, 0), [0, 1, 2, 3, 4, 3, 4, 5, 6]);
  for (let a = 0; a < 3; a++) assert.deepEqual(axis(a, 1), [1, 1, 1, 1, 1, 1, 1, 0, 1]);
  assert.deepEqual(Array.from(p.attentionMask.subarray(9), Number), [0, 0, 0, 0, 0, 0, 0, 1, 1]);
});

void test('P(yes) of the vision-language layout equals the hand computation', async () => {
  const input = { ...sampleInput(2, 1), screenshot: screenshot(40, 30) };
  const want = handP(input);
  const [score] = await judge.scoreBatch([input]);
  assert.ok(score);
  assert.equal(score.promptTokens, want.tokens);
  assert.ok(Math.abs(score.pYes - want.p) < 1e-5, `onnx ${score.pYes} vs hand ${want.p}`);
});

void test('a batch with and without screenshots of different sizes equals the hand computation row by row', async () => {
  const inputs: JudgeInput[] = [
    { ...sampleInput(1, 0), screenshot: screenshot(40, 30) },
    sampleInput(0, 2),
    { ...sampleInput(4, 3), screenshot: screenshot(200, 120) },
  ];
  const scores = await judge.scoreBatch(inputs);
  inputs.forEach((input, i) => {
    const want = handP(input);
    assert.equal(scores[i]?.promptTokens, want.tokens, `row ${i} length`);
    assert.ok(Math.abs((scores[i]?.pYes ?? NaN) - want.p) < 1e-5, `row ${i}: onnx ${scores[i]?.pYes} vs hand ${want.p}`);
  });
  assert.ok((scores[2]?.promptTokens ?? 0) - (scores[0]?.promptTokens ?? 0) > 20, 'the larger screenshot takes more image tokens');
});

void test('left padding with float16 logits and past key values equals the hand computation', async () => {
  const m = writeTinyVlmJudge(path.join(root, 'vlm16'), { paddingSide: 'left', float16: true });
  const j = await OnnxJudge.load({ modelDir: m.dir, device: 'cpu', threads: 1 });
  try {
    const inputs: JudgeInput[] = [{ ...sampleInput(3, 1), screenshot: screenshot(64, 40) }, sampleInput(1, 4)];
    const scores = await j.scoreBatch(inputs);
    inputs.forEach((input, i) => {
      const want = handP(input, m);
      assert.equal(scores[i]?.promptTokens, want.tokens);
      assert.ok(Math.abs((scores[i]?.pYes ?? NaN) - want.p) < 2e-3, `row ${i}: onnx ${scores[i]?.pYes} vs hand ${want.p}`);
    });
  } finally {
    await j.close();
  }
});

void test('a screenshot that is not a JPEG fails the call with JUDGE_MODEL_BAD_IMAGE', async () => {
  const input = { ...sampleInput(1, 0), screenshot: new Uint8Array([1, 2, 3, 4, 5]) };
  await assert.rejects(judge.scoreBatch([input]), (e: unknown) => e instanceof JudgeModelError && e.code === 'JUDGE_MODEL_BAD_IMAGE' && /not a decodable JPEG/.test(e.message));
});
