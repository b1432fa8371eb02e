// test-run: alone (asserts that the event loop keeps ticking while a batch runs)
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { JudgeModelError, OnnxJudge, probeDevice } from '@owrl/judge-model';
import { writeTinyDecoderJudge, type TinyDecoderJudge } from '@owrl/judge-model/testing';
import { probeGraph, recordingLogger, sampleInput, tempDir } from './helpers.js';

const root = tempDir('runtime');
after(() => fs.rmSync(root, { recursive: true, force: true }));

let small: TinyDecoderJudge;
/** Hidden 256 × vocab 4096 and full logits: a batch of long prompts takes a while on one thread. */
let slow: TinyDecoderJudge;
const slowBatch = (n: number) => Array.from({ length: n }, (_, i) => sampleInput(15, i));
before(() => {
  small = writeTinyDecoderJudge(path.join(root, 'small'), { numLogitsToKeep: true });
  slow = writeTinyDecoderJudge(path.join(root, 'slow'), { hidden: 256, vocab: 4096, maxPositions: 2048 });
});

function isCode(code: string, message?: RegExp) {
  return (e: unknown) => {
    assert.ok(e instanceof JudgeModelError, `expected a JudgeModelError, got ${String(e)}`);
    assert.equal(e.code, code, e.message);
    if (message) assert.match(e.message, message);
    return true;
  };
}

void test("device 'cuda' without the CUDA provider fails with a coded error naming what is missing", async (t) => {
  if ((await probeDevice('cuda', probeGraph())).ok) return t.skip('the CUDA provider is usable here');
  await assert.rejects(
    OnnxJudge.load({ modelDir: small.dir, device: 'cuda', threads: 1 }),
    isCode('JUDGE_MODEL_DEVICE_UNAVAILABLE', /device "cuda" \(cuda_provider_missing\).*libonnxruntime_providers_cuda\.so.*--onnxruntime-node-install=cuda12/s),
  );
});

void test("device 'auto' walks CUDA, WebGPU, then the CPU: a warning per device passed over, and one info line naming the device and why", async (t) => {
  const skips = await Promise.all((['cuda', 'webgpu'] as const).map((d) => probeDevice(d, probeGraph())));
  if (skips.some((p) => p.ok)) return t.skip('a GPU device is usable here: auto does not fall back to the CPU');
  const logger = recordingLogger();
  const judge = await OnnxJudge.load({ modelDir: small.dir, device: 'auto', threads: 1, logger });
  try {
    assert.equal(judge.device, 'cpu');
    assert.equal(judge.requested, 'auto');
    assert.deepEqual(
      judge.passedOver.map((p) => p.device),
      ['cuda', 'webgpu'],
    );
    const warns = logger.records.filter((r) => r.level === 'warn');
    assert.deepEqual(
      warns.map((w) => (w.obj as { device?: string }).device),
      ['cuda', 'webgpu'],
    );
    assert.match(String((warns[0]?.obj as { reason?: string }).reason), /CUDA execution provider/);
    assert.match(String((warns[1]?.obj as { reason?: string }).reason), /Vulkan|adapter/);
    const infos = logger.records.filter((r) => r.level === 'info');
    assert.equal(infos.length, 1);
    assert.match(infos[0]?.msg ?? '', /^judge model running on cpu \(auto passed over cuda: cuda_\w+; webgpu: (vulkan_loader_missing|webgpu_\w+)\)$/);
    assert.equal((infos[0]?.obj as { device?: string }).device, 'cpu');
    const [s] = await judge.scoreBatch([sampleInput(1)]);
    assert.ok(s && s.pYes > 0 && s.pYes < 1);
  } finally {
    await judge.close();
  }
});

void test('the event loop keeps ticking while a slow batch runs in the worker thread', async () => {
  const judge = await OnnxJudge.load({ modelDir: slow.dir, device: 'cpu', threads: 1 });
  try {
    // Batches grow until one forward pass takes 200 ms, whatever the machine's speed.
    for (let size = 2; ; size *= 2) {
      let last = performance.now();
      let maxGap = 0;
      let ticks = 0;
      const iv = setInterval(() => {
        const now = performance.now();
        maxGap = Math.max(maxGap, now - last);
        last = now;
        ticks++;
      }, 10);
      const before = judge.stats().inferenceMs;
      const t0 = performance.now();
      const scores = await judge.scoreBatch(slowBatch(size));
      const took = performance.now() - t0;
      clearInterval(iv);
      const inference = judge.stats().inferenceMs - before;
      assert.equal(scores.length, size);
      if (inference < 200 && size < 64) continue;
      assert.ok(inference >= 200, `a batch of ${size} took only ${inference.toFixed(0)} ms`);
      // Run on the main thread, the forward pass would be one gap at least as long as itself.
      assert.ok(maxGap < inference / 2, `largest event-loop gap ${maxGap.toFixed(0)} ms during a ${inference.toFixed(0)} ms forward pass`);
      assert.ok(ticks >= took / 10 / 3, `${ticks} ticks in ${took.toFixed(0)} ms`);
      break;
    }
  } finally {
    await judge.close();
  }
});

void test('a call past its deadline rejects with JUDGE_MODEL_TIMEOUT and the judge keeps working', async () => {
  const judge = await OnnxJudge.load({ modelDir: slow.dir, device: 'cpu', threads: 1 });
  try {
    await judge.scoreBatch(slowBatch(1));
    // A quarter of what the same batch just took.
    const timeoutMs = Math.max(1, Math.floor(judge.stats().inferenceMs / 4));
    const t0 = performance.now();
    await assert.rejects(judge.scoreBatch(slowBatch(1), { timeoutMs }), isCode('JUDGE_MODEL_TIMEOUT', new RegExp(`within ${timeoutMs} ms \\(running\\)`)));
    assert.ok(performance.now() - t0 < timeoutMs + 500, 'the caller is released at its deadline, not when the batch ends');
    assert.equal(judge.stats().timeouts, 1);
    const [s] = await judge.scoreBatch([sampleInput(0)]);
    assert.ok(s && Number.isFinite(s.pYes));
  } finally {
    await judge.close();
  }
});

void test('an aborted call rejects with JUDGE_MODEL_ABORTED; close rejects what is pending', async () => {
  const judge = await OnnxJudge.load({ modelDir: small.dir, device: 'cpu', threads: 1 });
  const ac = new AbortController();
  const first = judge.scoreBatch([sampleInput(2)]);
  const aborted = judge.scoreBatch([sampleInput(3)], { signal: ac.signal });
  ac.abort();
  await assert.rejects(aborted, isCode('JUDGE_MODEL_ABORTED'));
  assert.equal((await first).length, 1);
  const pending = assert.rejects(judge.scoreBatch([sampleInput(2)]), isCode('JUDGE_MODEL_CLOSED'));
  await judge.close();
  await pending;
  await assert.rejects(judge.scoreBatch([sampleInput(1)]), isCode('JUDGE_MODEL_CLOSED'));
});

void test('a crashed worker (out of memory) rejects its call with JUDGE_MODEL_CRASHED and is replaced', async () => {
  const logger = recordingLogger();
  const judge = await OnnxJudge.load({ modelDir: small.dir, device: 'cpu', threads: 1, workerHeapMb: 48, logger });
  try {
    const before = await judge.scoreBatch([sampleInput(1)]);
    const huge = { ...sampleInput(1), finalAnswer: 'the price is '.repeat(2_000_000) };
    await assert.rejects(judge.scoreBatch([huge]), isCode('JUDGE_MODEL_CRASHED', /ERR_WORKER_OUT_OF_MEMORY/));
    assert.equal(judge.stats().crashes, 1);
    assert.ok(logger.records.some((r) => r.level === 'error' && /crashed; starting a replacement/.test(r.msg)));
    const afterwards = await judge.scoreBatch([sampleInput(1)]);
    assert.equal(afterwards[0]?.pYes, before[0]?.pYes, 'the replacement worker scores like the first');
  } finally {
    await judge.close();
  }
});

void test('two workers split a call larger than maxBatch and return rows in order', async () => {
  const one = await OnnxJudge.load({ modelDir: small.dir, device: 'cpu', threads: 1 });
  const two = await OnnxJudge.load({ modelDir: small.dir, device: 'cpu', threads: 1, workers: 2, maxBatch: 2 });
  try {
    const inputs = Array.from({ length: 5 }, (_, i) => sampleInput(i, i));
    const want = await one.scoreBatch(inputs);
    const got = await two.scoreBatch(inputs);
    assert.equal(two.stats().batches, 3);
    got.forEach((s, i) => assert.ok(Math.abs(s.pYes - (want[i]?.pYes ?? NaN)) < 1e-6, `row ${i}`));
    assert.equal(new Set(got.map((s) => s.pYes.toFixed(6))).size, 5, 'rows differ, so order is checked');
  } finally {
    await Promise.all([one.close(), two.close()]);
  }
});

void test('with prepare workers the model is loaded once, calls prepared while it runs are merged into one pass, and rows come back in order', async () => {
  const plain = await OnnxJudge.load({ modelDir: slow.dir, device: 'cpu', threads: 1 });
  const split = await OnnxJudge.load({ modelDir: slow.dir, device: 'cpu', threads: 1, prepareWorkers: 2, maxBatch: 8 });
  try {
    assert.equal(split.workers, 1);
    assert.equal(split.prepareWorkers, 2);
    const calls = [0, 1, 2, 3].map((c) => [sampleInput(2 + c, c), sampleInput(9 - c, c + 1)]);
    const want = await Promise.all(calls.map((c) => plain.scoreBatch(c)));
    const got = await Promise.all(calls.map((c) => split.scoreBatch(c)));
    got.forEach((rows, c) =>
      rows.forEach((s, i) => {
        assert.ok(Math.abs(s.pYes - (want[c]?.[i]?.pYes ?? NaN)) < 1e-6, `call ${c} row ${i}: ${s.pYes} against ${want[c]?.[i]?.pYes}`);
        assert.equal(s.promptTokens, want[c]?.[i]?.promptTokens);
      }),
    );
    // The first call runs alone; the three prepared while its (slow) pass ran share the next one.
    assert.ok(split.stats().batches < calls.length, `${split.stats().batches} passes for ${calls.length} calls`);
    assert.equal(split.stats().judgements, 8);
  } finally {
    await Promise.all([plain.close(), split.close()]);
  }
});

void test('a crashed prepare worker rejects its call with JUDGE_MODEL_CRASHED and is replaced; the model worker is untouched', async () => {
  const logger = recordingLogger();
  const judge = await OnnxJudge.load({ modelDir: small.dir, device: 'cpu', threads: 1, prepareWorkers: 1, workerHeapMb: 48, logger });
  try {
    const before = await judge.scoreBatch([sampleInput(1)]);
    const huge = { ...sampleInput(1), finalAnswer: 'the price is '.repeat(2_000_000) };
    await assert.rejects(judge.scoreBatch([huge]), isCode('JUDGE_MODEL_CRASHED', /prepare worker crashed.*ERR_WORKER_OUT_OF_MEMORY/));
    assert.ok(logger.records.some((r) => r.level === 'error' && /judge prepare worker crashed; starting a replacement/.test(r.msg)));
    const afterwards = await judge.scoreBatch([sampleInput(1)]);
    assert.equal(afterwards[0]?.pYes, before[0]?.pYes);
    assert.equal(judge.stats().crashes, 1);
  } finally {
    await judge.close();
  }
});

void test('a call that times out while prepared and waiting for the model says so, and the model goes on', async () => {
  const judge = await OnnxJudge.load({ modelDir: slow.dir, device: 'cpu', threads: 1, prepareWorkers: 1, maxBatch: 2 });
  try {
    await judge.scoreBatch(slowBatch(2));
    const passMs = judge.stats().inferenceMs;
    // The first call holds the model for about a pass; the second, of two more rows than fit with
    // it, waits prepared and its deadline is a fraction of a pass.
    const first = judge.scoreBatch(slowBatch(2));
    const late = judge.scoreBatch(slowBatch(2), { timeoutMs: Math.max(1, Math.floor(passMs / 3)) });
    await assert.rejects(late, isCode('JUDGE_MODEL_TIMEOUT', /prepared, waiting for the model|still queued/));
    assert.equal((await first).length, 2);
    assert.equal((await judge.scoreBatch([sampleInput(1)])).length, 1);
  } finally {
    await judge.close();
  }
});
