// A tiny pointer problem for tests and benchmarks of trainers: every step offers three candidates,
// one carrying the "right" feature; an episode of `steps` steps earns reward 1 only when every
// step picks it. Rollouts sample from a PointerModel exactly as the actors' policy does (softmax
// of the logits), so a trainer that learns raises their success rate within a few updates.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { mulberry32, type Rng } from '@owrl/core';
import { PointerModel, type CsrFeatures } from '@owrl/policy';
import { create, TrainHeaderSchema, TrainHyperparamsSchema, type PolicyArtifact, type TrainHeader } from '@owrl/proto';
import type { PointerTraceLike } from '@owrl/rl';
import type { PointerGroupIn } from './convert.js';

export const TOY_DIM = 64;

function candidates(rng: Rng): { csr: CsrFeatures; good: number } {
  const good = Math.floor(rng() * 3);
  const featureIndex: number[] = [];
  const featureValue: number[] = [];
  const offsets = [0];
  for (let i = 0; i < 3; i++) {
    // a shared bias feature, a per-slot feature, and the marker: 1 = right, 2 = wrong
    featureIndex.push(10, 20 + i, i === good ? 1 : 2);
    featureValue.push(1, 1, 1);
    offsets.push(featureIndex.length);
  }
  return { csr: { offsets: Uint32Array.from(offsets), featureIndex: Uint32Array.from(featureIndex), featureValue: Float32Array.from(featureValue) }, good };
}

/** `groups` groups of `n` rollouts under `model`; returns them and the success rate. */
export function toyRollout(model: PointerModel, opts: { groups: number; n?: number; steps?: number; seed: number; round: number; version: bigint }): { groups: PointerGroupIn[]; success: number } {
  const rng = mulberry32(opts.seed);
  const n = opts.n ?? 5;
  let wins = 0;
  const groups: PointerGroupIn[] = [];
  for (let g = 0; g < opts.groups; g++) {
    const samples = [];
    for (let s = 0; s < n; s++) {
      const steps: PointerTraceLike[] = [];
      let ok = true;
      for (let t = 0; t < (opts.steps ?? 1); t++) {
        const { csr, good } = candidates(rng);
        const { index, logprob } = model.sample(csr, rng);
        if (index !== good) ok = false;
        steps.push({ ...csr, chosen: index, logprob, temperature: model.temperature });
      }
      if (ok) wins++;
      samples.push({ trajectoryId: `run-t/${opts.round}/${g}/${s}/0`, reward: ok ? 1 : 0, policyVersion: opts.version, steps });
    }
    groups.push({ taskId: `task-${g}`, round: opts.round, group: g, samples });
  }
  return { groups, success: wins / (opts.groups * n) };
}

export function toyHeader(base: bigint, batch = `run-t/update-${base + 1n}`, hyper: { lossAgg?: string; learningRate?: number; minibatches?: number; ppoEpochs?: number; trustKl?: number; klStop?: number } = {}): TrainHeader {
  return create(TrainHeaderSchema, {
    schemaVersion: 1,
    runId: 'run-t',
    batchId: batch,
    baseVersion: base,
    targetVersion: base + 1n,
    hyper: create(TrainHyperparamsSchema, { ppoEpochs: 2, clipLow: 0.2, clipHigh: 0.28, ...hyper }),
  });
}

/** The model a file:// artifact points at, after checking its sha256 and size. */
export function readToyArtifact(a: PolicyArtifact): PointerModel {
  const bytes = new Uint8Array(fs.readFileSync(fileURLToPath(a.uri)));
  const sha = createHash('sha256').update(bytes).digest('hex');
  if (sha !== a.sha256 || BigInt(bytes.length) !== a.bytes) throw new Error(`artifact ${a.uri} does not match its sha256/bytes`);
  return PointerModel.fromOnnx(bytes);
}
