// Exports a GPU judge uses, loaded and scored on the CPU: weights in external data files (an 8B
// judge is over protobuf's 2 GB limit) and float16 graphs (weights, activations and logits).
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { OnnxJudge, type JudgeInput } from '@owrl/judge-model';
import { writeGeneratedJudge, writeTinyDecoderJudge, writeTinyVlmJudge, type DecoderShape } from '@owrl/judge-model/testing';
import { gradientJpeg, sampleInput, tempDir } from './helpers.js';
import { FP16_TOLERANCE } from './tolerances.js';

const root = tempDir('exports');
after(() => fs.rmSync(root, { recursive: true, force: true }));

const SHAPE: DecoderShape = { hidden: 64, layers: 2, heads: 4, ff: 160, vocab: 512 };
/** Rows of different lengths, so every batch is padded. */
const inputs: JudgeInput[] = [sampleInput(1, 0), sampleInput(6, 1), sampleInput(3, 2), sampleInput(11, 3), sampleInput(2, 4)];

async function scores(dir: string, batch: JudgeInput[] = inputs, maxBatch?: number): Promise<number[]> {
  const judge = await OnnxJudge.load({ modelDir: dir, device: 'cpu', threads: 1, ...(maxBatch !== undefined ? { maxBatch } : {}) });
  try {
    return (await judge.scoreBatch(batch)).map((s) => s.pYes);
  } finally {
    await judge.close();
  }
}

void test('tiny decoder and VLM exports with their weights in external data files score exactly as inline ones', async () => {
  for (const [name, write] of [
    ['decoder', (dir: string, externalData: boolean) => writeTinyDecoderJudge(dir, { numLogitsToKeep: true, externalData })],
    ['vlm', (dir: string, externalData: boolean) => writeTinyVlmJudge(dir, { externalData })],
  ] as const) {
    const inline = write(path.join(root, `${name}-inline`), false);
    const external = write(path.join(root, `${name}-external`), true);
    const files = fs.readdirSync(path.join(external.dir, 'onnx'));
    assert.ok(files.some((f) => f.endsWith('.onnx_data')), `${name}: ${files.join(', ')}`);
    const graph = fs.readdirSync(path.join(external.dir, 'onnx')).filter((f) => f.endsWith('.onnx'));
    for (const g of graph) {
      assert.ok(fs.statSync(path.join(external.dir, 'onnx', g)).size < fs.statSync(path.join(inline.dir, 'onnx', g)).size, `${name} ${g}: the weights left the graph`);
    }
    const batch = name === 'vlm' ? inputs.map((x, i) => ({ ...x, screenshot: gradientJpeg(40 + 20 * i, 30) })) : inputs;
    assert.deepEqual(await scores(external.dir, batch), await scores(inline.dir, batch), name);
  }
});

void test(`a float16 export scores within ${FP16_TOLERANCE} of its float32 twin, with external data or inline`, async () => {
  const fp32 = writeGeneratedJudge(path.join(root, 'gen-fp32'), { shape: SHAPE, seed: 11 });
  const fp16 = writeGeneratedJudge(path.join(root, 'gen-fp16'), { shape: SHAPE, seed: 11, dtype: 'fp16' });
  const fp16Inline = writeGeneratedJudge(path.join(root, 'gen-fp16-inline'), { shape: SHAPE, seed: 11, dtype: 'fp16', externalData: false });
  assert.ok(fp16.bytes < fp32.bytes * 0.6, `fp16 ${fp16.bytes} bytes against fp32 ${fp32.bytes}`);
  const want = await scores(fp32.dir);
  const got = await scores(fp16.dir);
  assert.deepEqual(await scores(fp16Inline.dir), got);
  got.forEach((p, i) => assert.ok(Math.abs(p - (want[i] ?? NaN)) <= FP16_TOLERANCE, `row ${i}: fp16 ${p} against fp32 ${want[i]}`));
  // The weights are not all alike: rows differ, so the comparison checks something.
  assert.ok(new Set(want.map((p) => p.toFixed(5))).size >= 4, `P(yes) ${want.join(', ')}`);
});

void test('the generated decoder masks padding: a row scores the same alone and in a padded pass, left or right padding', async () => {
  for (const side of ['left', 'right'] as const) {
    const m = writeGeneratedJudge(path.join(root, `gen-${side}`), { shape: SHAPE, seed: 3, paddingSide: side });
    const batched = await scores(m.dir);
    const alone = await scores(m.dir, inputs, 1);
    batched.forEach((p, i) => assert.ok(Math.abs(p - (alone[i] ?? NaN)) < 1e-5, `${side} row ${i}: ${p} batched against ${alone[i]} alone`));
  }
});
