// Warm-up benchmark: the same RL budget on the four-site mix, once from the uniform policy and
// once after behaviour cloning on the scripted solvers (owrl demo --warmup), run one after the
// other in this one invocation (real NATS, Chromium, separate processes). Figures: success over
// the last three rounds overall and on two-step tasks, by difficulty, and the warm-up's own
// held-out success. Extra arguments go to both demos.
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
  curve: number[];
  wall_s: number;
  by_difficulty_last3: Record<string, { episodes: number; successes: number; rate: number }>;
  warmup?: { held_out: { rate: number; by_difficulty: Record<string, { rate: number }> }; wall_s: number; held_out_accuracy: number; samples: number };
}

/** The budget both arms get (sized to finish within about 15 minutes on a small machine). */
const BUDGET = ['--rounds', '6', '--groups', '4', '--group-size', '4', '--actors', '2', '--slots', '2', '--tasks', '30', '--difficulties', '1,2,3', '--warmup-tasks', '5'];

async function demo(out: string, extra: string[]): Promise<Report> {
  const json = path.join(out, `result-${Date.now()}.json`);
  const code = await new Promise<number | null>((resolve) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'services/cli/bin/owrl.js'), 'demo', '--out', out, '--json', json, ...extra], {
      stdio: ['ignore', 2, 2],
      env: { ...process.env, OWRL_LOG_LEVEL: process.env['OWRL_LOG_LEVEL'] ?? 'warn' },
    });
    child.once('exit', resolve);
  });
  if (code !== 0) throw new Error(`the demo (${extra.join(' ')}) exited with code ${code}`);
  return (JSON.parse(fs.readFileSync(json, 'utf8')) as { report: Report }).report;
}

const r4 = (x: number): number => Number(x.toFixed(4));
const twoStep = (r: Report): number => r4(r.by_difficulty_last3['2']?.rate ?? 0);
const byDifficulty = (r: Report): Record<string, number> => Object.fromEntries(Object.entries(r.by_difficulty_last3).map(([k, v]) => [k, r4(v.rate)]));

export async function warmupBench(args: string[]): Promise<Record<string, unknown>> {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'owrl-bench-warmup-'));
  const t0 = Date.now();
  try {
    process.stderr.write('bench warmup: RL from the uniform policy\n');
    const rl = await demo(out, [...BUDGET, '--no-warmup', '--run-id', 'bench-rl', ...args]);
    process.stderr.write('bench warmup: warm-up, then the same RL budget\n');
    const wu = await demo(out, [...BUDGET, '--warmup', '--run-id', 'bench-warmup-rl', ...args]);
    return {
      bench: 'warmup',
      success_rl: r4(rl.success_last3),
      success_warmup_rl: r4(wu.success_last3),
      success_2step_rl: twoStep(rl),
      success_2step_warmup_rl: twoStep(wu),
      rounds: rl.rounds,
      curve_rl: rl.curve,
      curve_warmup_rl: wu.curve,
      by_difficulty_rl: byDifficulty(rl),
      by_difficulty_warmup_rl: byDifficulty(wu),
      warmup_held_out_success: r4(wu.warmup?.held_out.rate ?? 0),
      warmup_held_out_by_difficulty: Object.fromEntries(Object.entries(wu.warmup?.held_out.by_difficulty ?? {}).map(([k, v]) => [k, r4(v.rate)])),
      warmup_held_out_action_accuracy: r4(wu.warmup?.held_out_accuracy ?? 0),
      warmup_wall_s: wu.warmup?.wall_s ?? 0,
      wall_s: Number(((Date.now() - t0) / 1000).toFixed(1)),
    };
  } finally {
    fs.rmSync(out, { recursive: true, force: true });
  }
}
