// A run's warm-up (policy.warmup of the run file; `owrl demo` turns it on for the pointer
// policy): behaviour cloning of the built-in pointer policy on the bundled sites' scripted solvers
// before RL. Demonstrations come from tasks drawn with seeds other than the learner's pool, the
// held-out figure from tasks outside the demonstrations; the warmed-up weights are written as an
// ONNX artifact the learner loads as its first version (OWRL_INIT_POLICY).
import fs from 'node:fs';
import path from 'node:path';
import { BrowserPool } from '@owrl/browser-env';
import { fetchSuiteTasks, warmUp, type SuccessFigure } from '@owrl/demos';
import { DEFAULT_DIM } from '@owrl/policy';
import type { Task } from '@owrl/proto';

export interface WarmupSettings {
  /** Demonstration tasks per suite. */
  tasksPerSuite: number;
  epochs: number;
  lr: number;
  temperature: number;
  /** Step budget of the held-out episodes (the curriculum's first stage). */
  maxSteps: number;
  suites: string[];
  difficulties: number[];
  seed: number;
}

export interface WarmupReport {
  demonstrations: number;
  solved: number;
  steps: number;
  samples: number;
  epochs: number;
  train_loss: number;
  train_accuracy: number;
  held_out_accuracy: number;
  held_out_accuracy_before: number;
  held_out: SuccessFigure;
  wall_s: number;
  artifact: string;
}

export const WARMUP_TRAIN_SEED = 1001;
export const WARMUP_HELD_OUT_SEED = 2002;

export async function runWarmup(sitesUrl: string, sitesHost: string, outFile: string, s: WarmupSettings, out: (line: string) => void, chromium?: string): Promise<WarmupReport> {
  const train: Task[] = [];
  const held: Task[] = [];
  for (const suite of s.suites) {
    train.push(...(await fetchSuiteTasks(sitesUrl, suite, { seed: WARMUP_TRAIN_SEED + s.seed, n: s.tasksPerSuite, difficulties: s.difficulties })));
  }
  const ids = new Set(train.map((t) => t.id));
  for (const suite of s.suites) {
    const got = await fetchSuiteTasks(sitesUrl, suite, { seed: WARMUP_HELD_OUT_SEED + s.seed, n: s.tasksPerSuite * 2, difficulties: s.difficulties });
    held.push(...got.filter((t) => !ids.has(t.id)).slice(0, Math.max(2, Math.ceil(s.tasksPerSuite / 2))));
  }
  out(`warm-up: ${train.length} demonstration tasks, ${held.length} held-out tasks (${s.suites.join(', ')})`);
  const pool = new BrowserPool({ screenshots: 0, allowHosts: [sitesHost], settleMaxMs: 1000, ...(chromium ? { executablePath: chromium } : {}) });
  await pool.start();
  try {
    const r = await warmUp({ pool, train, heldOut: held, dim: DEFAULT_DIM, temperature: s.temperature, epochs: s.epochs, lr: s.lr, seed: s.seed, maxSteps: s.maxSteps, log: out });
    fs.mkdirSync(path.dirname(outFile), { recursive: true });
    fs.writeFileSync(outFile, r.model.toOnnx());
    const last = r.epochs[r.epochs.length - 1];
    return {
      demonstrations: r.demos.tasks,
      solved: r.demos.solved,
      steps: r.demos.steps,
      samples: r.demos.samples,
      epochs: s.epochs,
      train_loss: last?.loss ?? 0,
      train_accuracy: last?.accuracy ?? 0,
      held_out_accuracy: r.heldOutFit.accuracy,
      held_out_accuracy_before: r.heldOutFitBefore.accuracy,
      held_out: r.heldOut,
      wall_s: Number(r.wallS.toFixed(1)),
      artifact: outFile,
    };
  } finally {
    await pool.close();
  }
}
