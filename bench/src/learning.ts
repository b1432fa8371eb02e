// Learning benchmark: runs the default demo (separate processes, real NATS and Chromium) and
// reports the learning curve: success in the first round against the mean of the last three.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

interface Report {
  rounds: number;
  success_first: number;
  success_last3: number;
  success_last3_easy: number;
  curve: number[];
  wall_s: number;
  policy_version: number;
  by_difficulty_last3: unknown;
  counters: Record<string, number>;
  last_epoch_clip?: { mean: number; max: number };
}

export async function learningBench(args: string[]): Promise<Record<string, unknown>> {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'owrl-bench-learning-'));
  const json = path.join(out, 'result.json');
  const t0 = Date.now();
  const code = await new Promise<number | null>((resolve) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'services/cli/bin/owrl.js'), 'demo', '--out', out, '--json', json, ...args], {
      stdio: ['ignore', 2, 2],
      env: { ...process.env, OWRL_LOG_LEVEL: process.env['OWRL_LOG_LEVEL'] ?? 'warn' },
    });
    // The demo's progress goes to our stderr so that stdout ends with the JSON line alone.
    child.once('exit', resolve);
  });
  if (code !== 0) throw new Error(`the demo exited with code ${code}`);
  const { report } = JSON.parse(fs.readFileSync(json, 'utf8')) as { report: Report };
  fs.rmSync(out, { recursive: true, force: true });
  return {
    bench: 'learning',
    rounds: report.rounds,
    success_first: report.success_first,
    success_last3: report.success_last3,
    success_last3_easy_1_3: report.success_last3_easy,
    gain: Number((report.success_last3 - report.success_first).toFixed(4)),
    policy_version: report.policy_version,
    by_difficulty_last3: report.by_difficulty_last3,
    rollouts: report.counters['dispatched'] ?? 0,
    last_epoch_clip_mean: report.last_epoch_clip?.mean ?? null,
    last_epoch_clip_max: report.last_epoch_clip?.max ?? null,
    trust_kl: process.env['OWRL_TRUST_KL'] ?? 'default',
    wall_s: Number(((Date.now() - t0) / 1000).toFixed(1)),
    curve: report.curve,
  };
}
