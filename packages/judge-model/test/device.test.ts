// The judge on each GPU device this machine has (CUDA where its provider is installed, WebGPU
// where Dawn finds an adapter): P(yes) against the CPU's on the same export, float32 and float16,
// external data, padded passes; the model loaded once. Each test runs where its device is usable
// and is skipped with the reason elsewhere; `scripts/gpu-check.sh` runs this file on a GPU host.
// test-run: alone (loads the GPU; a neighbour's load would not change the verdicts, but the
// float16 figures it prints are compared across runs)
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { JudgeModelError, OnnxJudge, probeDevice, type DeviceSkip, type GpuDevice, type JudgeInput } from '@owrl/judge-model';
import { writeGeneratedJudge, writeTinyVlmJudge, type DecoderShape } from '@owrl/judge-model/testing';
import { gradientJpeg, probeGraph, sampleInput, tempDir } from './helpers.js';
import { FP16_TOLERANCE, FP32_DEVICE_TOLERANCE } from './tolerances.js';

const root = tempDir('device');
after(() => fs.rmSync(root, { recursive: true, force: true }));

const SHAPE: DecoderShape = { hidden: 256, layers: 4, heads: 8, ff: 704, vocab: 2048 };
const inputs: JudgeInput[] = Array.from({ length: 12 }, (_, i) => sampleInput(1 + ((i * 5) % 13), i));
const usable = new Map<GpuDevice, { ok: true } | { ok: false; skip: DeviceSkip }>();
const models: Record<string, string> = {};

before(async () => {
  for (const d of ['cuda', 'webgpu'] as const) usable.set(d, await probeDevice(d, probeGraph()));
  models['fp32'] = writeGeneratedJudge(path.join(root, 'fp32'), { shape: SHAPE, seed: 21 }).dir;
  models['fp16'] = writeGeneratedJudge(path.join(root, 'fp16'), { shape: SHAPE, seed: 21, dtype: 'fp16' }).dir;
  models['vlm'] = writeTinyVlmJudge(path.join(root, 'vlm'), { externalData: true }).dir;
});

function skipReason(d: GpuDevice): string | undefined {
  const u = usable.get(d);
  return u === undefined || u.ok ? undefined : `${d} is not usable here (${u.skip.code}): ${u.skip.reason}`;
}

async function score(dir: string, device: 'cpu' | GpuDevice, batch: JudgeInput[]): Promise<{ p: number[]; judge: { device: string; workers: number; prepareWorkers: number } }> {
  const judge = await OnnxJudge.load({ modelDir: dir, device, threads: 2 });
  try {
    const p = (await judge.scoreBatch(batch)).map((s) => s.pYes);
    return { p, judge: { device: judge.device, workers: judge.workers, prepareWorkers: judge.prepareWorkers } };
  } finally {
    await judge.close();
  }
}

function maxDiff(a: number[], b: number[]): number {
  return Math.max(...a.map((x, i) => Math.abs(x - (b[i] ?? NaN))));
}

for (const device of ['cuda', 'webgpu'] as const) {
  for (const dtype of ['fp32', 'fp16'] as const) {
    const tolerance = dtype === 'fp32' ? FP32_DEVICE_TOLERANCE : FP16_TOLERANCE;
    void test(`${device}: a ${dtype} export (external data, padded passes) scores within ${tolerance} of the CPU, the model loaded once`, async (t) => {
      const why = skipReason(device);
      if (why !== undefined) return t.skip(why);
      const dir = models[dtype] ?? '';
      const cpu = await score(dir, 'cpu', inputs);
      const gpu = await score(dir, device, inputs);
      assert.equal(gpu.judge.device, device);
      assert.equal(gpu.judge.workers, 1, 'one copy of the model on the GPU');
      assert.ok(gpu.judge.prepareWorkers >= 1, 'prompts are prepared beside the model');
      const diff = maxDiff(gpu.p, cpu.p);
      t.diagnostic(`${device} ${dtype}: max |P(yes) ${device} − P(yes) cpu| = ${diff.toExponential(2)} over ${inputs.length} rows`);
      assert.ok(diff <= tolerance, `max difference ${diff} over ${tolerance}: ${device} ${gpu.p.join(', ')} against cpu ${cpu.p.join(', ')}`);
    });
  }

  void test(`${device}: the vision-language layout (three graphs, screenshots) scores within ${FP32_DEVICE_TOLERANCE} of the CPU`, async (t) => {
    const why = skipReason(device);
    if (why !== undefined) return t.skip(why);
    const batch = inputs.slice(0, 4).map((x, i) => ({ ...x, screenshot: gradientJpeg(60 + 30 * i, 40) }));
    const cpu = await score(models['vlm'] ?? '', 'cpu', batch);
    const gpu = await score(models['vlm'] ?? '', device, batch);
    const diff = maxDiff(gpu.p, cpu.p);
    t.diagnostic(`${device} vlm: max |P(yes) difference| = ${diff.toExponential(2)}`);
    assert.ok(diff <= FP32_DEVICE_TOLERANCE, `max difference ${diff}`);
  });
}

void test("device 'webgpu' where no adapter can be had fails with a coded error naming what is missing", async (t) => {
  if (skipReason('webgpu') === undefined) return t.skip('WebGPU is usable here');
  await assert.rejects(OnnxJudge.load({ modelDir: models['fp32'] ?? '', device: 'webgpu', threads: 1 }), (e: unknown) => {
    assert.ok(e instanceof JudgeModelError, String(e));
    assert.equal(e.code, 'JUDGE_MODEL_DEVICE_UNAVAILABLE');
    assert.match(e.message, /device "webgpu" \((vulkan_loader_missing|webgpu_no_adapter|webgpu_unusable)\)/);
    assert.match(e.message, /libvulkan|adapter|VK_DRIVER_FILES/);
    return true;
  });
});

void test("'auto' takes the first usable device of cuda, webgpu, cpu and names each it passed over", async () => {
  const judge = await OnnxJudge.load({ modelDir: models['fp32'] ?? '', device: 'auto', threads: 1 });
  try {
    const want = (['cuda', 'webgpu'] as const).find((d) => skipReason(d) === undefined) ?? 'cpu';
    assert.equal(judge.device, want);
    const order = ['cuda', 'webgpu', 'cpu'];
    assert.deepEqual(
      judge.passedOver.map((p) => p.device),
      order.slice(0, order.indexOf(want)),
    );
    for (const p of judge.passedOver) assert.equal(p.code, (usable.get(p.device) as { skip: DeviceSkip }).skip.code);
  } finally {
    await judge.close();
  }
});
