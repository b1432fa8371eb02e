// Async benchmark: the same training budget (rounds × kept groups per update) in sync and in
// async mode, one after the other in this one invocation, on the four-site mix with long-tailed
// episode times: the sites' latency fault rules delay a few page loads by seconds and many by a
// fraction of one, so in sync mode most rounds wait for a straggler while slots stand idle.
// Real NATS, Chromium and separate processes (owrl demo). Figures: training wall time of each mode
// (first dispatch to the last update), speedup, staleness, and final success: each mode's final
// policy evaluated by `owrl eval` on one held-out task file (60 tasks of the four suites, k samples
// each, no latency faults), a paired comparison whose standard error is printed with it
// (success_diff_se); the success over the last three training rounds is kept as success_last3_*.
// `--order async,sync` runs async first (the machine's load can drift during a run: measure both
// orders), `--eval-k N` sets the samples per held-out task (default 2), `--no-eval` skips the
// evaluation (success_* are then the last three rounds'). Other arguments go to both demos.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '@owrl/testkit';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/** Both modes get this budget; the slots outnumber a sync round's rollouts in flight at its tail. */
const BUDGET = ['--rounds', '8', '--groups', '3', '--group-size', '4', '--actors', '3', '--slots', '4', '--tasks', '60', '--difficulties', '1,2,3', '--curriculum', '10:6'];

/**
 * Live-site page loads on the bundled sites (not the sites' API the learner reads tasks from): a
 * bundled page answers in milliseconds, a live one in 1–3 s with its settle (docs/sizing.md §1),
 * and a few take far longer (a slow host, a retry after a timeout: the long tail the paper
 * reports). Every page load waits 0.8–2.4 s; 4 % wait 8–18 s more. With 2–6 page loads per
 * episode this gives episode times with a p99 about 3× the median (the synthetic fleet's model,
 * docs/sizing.md §1, has 5×). Episodes are then dominated by waiting, as on live sites, rather
 * than by this machine's two cores (`--cpu-bound` keeps the earlier, lighter rules, 6 % of loads
 * +5–8 s and 30 % +0.4–0.7 s, with 2 actors × 4 slots).
 */
const FAULTS_LIVE = [
  { match: { path: '~^/(shop|travel|wiki|mail)(/|$)' }, fault: { kind: 'latency', ms: 800, jitter_ms: 1600 }, probability: 1, seed: 11 },
  { match: { path: '~^/(shop|travel|wiki|mail)(/|$)' }, fault: { kind: 'latency', ms: 8000, jitter_ms: 10000 }, probability: 0.04, seed: 12 },
];
const FAULTS_CPU_BOUND = [
  { match: { path: '~^/(shop|travel|wiki|mail)(/|$)' }, fault: { kind: 'latency', ms: 5000, jitter_ms: 3000 }, probability: 0.06, seed: 11 },
  { match: { path: '~^/(shop|travel|wiki|mail)(/|$)' }, fault: { kind: 'latency', ms: 400, jitter_ms: 300 }, probability: 0.3, seed: 12 },
];

interface Round {
  wallS: number;
  publishS: number;
  successRate: number;
  episodes: number;
}

interface DemoJson {
  report: { success_last3: number; rounds: number };
  state: { rounds: Round[]; staleness?: { counts: number[]; p50: number; p99: number; dropped: number }; counters: Record<string, number> };
}

/** Mean 1-minute load average while each mode ran (the machine is shared: compare like with like). */
const loadMeans: Record<string, number> = {};

async function demo(out: string, mode: string, faults: string, budget: string[], extra: string[]): Promise<DemoJson> {
  const json = path.join(out, `result-${mode}.json`);
  const loads: number[] = [];
  const sampler = setInterval(() => loads.push(os.loadavg()[0] ?? 0), 10_000);
  const code = await new Promise<number | null>((resolve) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'services/cli/bin/owrl.js'), 'demo', '--out', out, '--json', json, '--mode', mode, '--run-id', `bench-${mode}`, ...budget, ...extra], {
      stdio: ['ignore', 2, 2],
      env: { ...process.env, OWRL_SITES_FAULTS: faults, OWRL_LOG_LEVEL: process.env['OWRL_LOG_LEVEL'] ?? 'warn' },
    });
    child.once('exit', resolve);
  });
  clearInterval(sampler);
  loadMeans[mode] = loads.length ? loads.reduce((a, b) => a + b, 0) / loads.length : (os.loadavg()[0] ?? 0);
  if (code !== 0) throw new Error(`the ${mode} demo exited with code ${code}`);
  return JSON.parse(fs.readFileSync(json, 'utf8')) as DemoJson;
}

const r3 = (x: number): number => Number(x.toFixed(3));

const OWRL = path.join(ROOT, 'services/cli/bin/owrl.js');
const EVAL_SUITES = ['shop', 'travel', 'wiki', 'mail'];
/** Held-out tasks per suite; the task seed differs from the demos' (their tasks come from the sites' own list). */
const EVAL_TASKS_PER_SUITE = 15;
const EVAL_TASK_SEED = 7_001;

function owrl(args: string[], env: NodeJS.ProcessEnv, stdout: 'pipe' | 2): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [OWRL, ...args], { stdio: ['ignore', stdout === 'pipe' ? 'pipe' : 2, 2], env });
    let text = '';
    child.stdout?.setEncoding('utf8').on('data', (d: string) => (text += d));
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve(text) : reject(new Error(`owrl ${args.slice(0, 2).join(' ')} exited with code ${code}`))));
  });
}

/** The newest policy artifact a demo's learner published (its final policy). */
function finalPolicy(out: string, mode: string): string {
  const runId = `bench-${mode}`;
  const dir = path.join(out, runId, 'artifacts');
  const versions = fs.readdirSync(dir).map((f) => /^policy-v(\d+)\.onnx$/.exec(f)).filter((m) => m !== null).map((m) => Number(m[1]));
  if (versions.length === 0) throw new Error(`no policy artifact in ${dir}`);
  return path.join(dir, `policy-v${Math.max(...versions)}.onnx`);
}

interface EvalLine {
  index: number;
  outcome: 'success' | 'failure' | 'excluded';
}

/** Success rate per task index (valid samples only) from an eval's results.jsonl. */
function perTask(dir: string): Map<number, { n: number; ok: number }> {
  const m = new Map<number, { n: number; ok: number }>();
  for (const line of fs.readFileSync(path.join(dir, 'results.jsonl'), 'utf8').split('\n')) {
    if (!line.trim()) continue;
    const r = JSON.parse(line) as EvalLine;
    if (r.outcome === 'excluded') continue;
    const t = m.get(r.index) ?? { n: 0, ok: 0 };
    t.n++;
    if (r.outcome === 'success') t.ok++;
    m.set(r.index, t);
  }
  return m;
}

interface HeldOut {
  success: Record<'sync' | 'async', number>;
  diffSe: number;
  tasks: number;
  samples: Record<'sync' | 'async', number>;
  wallS: number;
}

/**
 * Both final policies on one held-out task file, same tasks and samples per task: pass@1 of each
 * and the standard error of their difference over the tasks both scored (paired by task).
 */
async function heldOut(out: string, k: number, extraEnv: NodeJS.ProcessEnv): Promise<HeldOut> {
  const t0 = Date.now();
  const env = { ...extraEnv };
  delete env['OWRL_SITES_FAULTS']; // the evaluation measures the policy, not the slow pages
  const tasksFile = path.join(out, 'held-out.jsonl');
  const baseUrl = `http://127.0.0.1:${await freePort()}`;
  let tasks = '';
  for (const suite of EVAL_SUITES) {
    tasks += await owrl(['tasks', 'sample', '--suite', suite, '--n', String(EVAL_TASKS_PER_SUITE), '--seed', String(EVAL_TASK_SEED), '--base-url', baseUrl, '--difficulties', '1,2,3'], env, 'pipe');
  }
  fs.writeFileSync(tasksFile, tasks);
  const rates: Partial<Record<'sync' | 'async', Map<number, { n: number; ok: number }>>> = {};
  for (const mode of ['sync', 'async'] as const) {
    process.stderr.write(`bench async: held-out evaluation of the ${mode} run's final policy\n`);
    const dir = path.join(out, `eval-${mode}`);
    await owrl(['eval', '--tasks', tasksFile, '--policy', finalPolicy(out, mode), '--k', String(k), '--max-steps', '6', '--actors', '3', '--slots', '4', '--out', dir, '--json', path.join(dir, 'summary.json')], env, 2);
    rates[mode] = perTask(dir);
  }
  const rate = (t: { n: number; ok: number }): number => t.ok / t.n;
  const mean = (m: Map<number, { n: number; ok: number }>): number => [...m.values()].reduce((a, t) => a + rate(t), 0) / Math.max(1, m.size);
  const diffs: number[] = [];
  for (const [i, a] of rates.async!) {
    const b = rates.sync!.get(i);
    if (b) diffs.push(rate(a) - rate(b));
  }
  const dm = diffs.reduce((a, d) => a + d, 0) / Math.max(1, diffs.length);
  const sd = Math.sqrt(diffs.reduce((a, d) => a + (d - dm) ** 2, 0) / Math.max(1, diffs.length - 1));
  const samples = (m: Map<number, { n: number; ok: number }>): number => [...m.values()].reduce((a, t) => a + t.n, 0);
  return {
    success: { sync: mean(rates.sync!), async: mean(rates.async!) },
    diffSe: sd / Math.sqrt(Math.max(1, diffs.length)),
    tasks: diffs.length,
    samples: { sync: samples(rates.sync!), async: samples(rates.async!) },
    wallS: (Date.now() - t0) / 1000,
  };
}

/** Splits a flag with a value (`--x V` or `--x=V`) off the arguments passed on to the demos. */
function takeFlag(args: string[], flag: string): { value: string | undefined; rest: string[] } {
  const i = args.findIndex((a) => a === flag || a.startsWith(`${flag}=`));
  if (i < 0) return { value: undefined, rest: args };
  const inline = args[i]!.includes('=');
  const value = inline ? args[i]!.slice(flag.length + 1) : args[i + 1];
  return { value, rest: args.filter((_, k) => k !== i && !(k === i + 1 && !inline)) };
}
/** Training wall time: every round from its first dispatch to its published update. */
const trainS = (d: DemoJson): number => d.state.rounds.reduce((a, r) => a + r.wallS + (r.publishS ?? 0), 0);

/** Splits `--order sync,async|async,sync` off the arguments passed on to the demos. */
function orderOf(args: string[]): { order: ['sync', 'async'] | ['async', 'sync']; rest: string[] } {
  const { value, rest } = takeFlag(args, '--order');
  if (value === undefined) return { order: ['sync', 'async'], rest };
  if (value === 'sync,async') return { order: ['sync', 'async'], rest };
  if (value === 'async,sync') return { order: ['async', 'sync'], rest };
  throw new Error(`--order ${value ?? ''}: expected sync,async or async,sync`);
}

export async function asyncBench(argv: string[]): Promise<Record<string, unknown>> {
  const { order, rest: afterOrder } = orderOf(argv);
  const { value: evalK, rest } = takeFlag(afterOrder, '--eval-k');
  const k = evalK === undefined ? 2 : Number(evalK);
  if (!Number.isInteger(k) || k < 1) throw new Error(`--eval-k ${evalK}: expected an integer >= 1`);
  const cpuBound = rest.includes('--cpu-bound');
  const noEval = rest.includes('--no-eval');
  const args = rest.filter((a) => a !== '--cpu-bound' && a !== '--no-eval');
  // The earlier configuration: 2 actors × 4 slots, a sync round's 12 first rollouts queued on 8 slots.
  const budget = cpuBound ? BUDGET.map((a, i) => (BUDGET[i - 1] === '--actors' ? '2' : a)) : BUDGET;
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'owrl-bench-async-'));
  const faults = path.join(out, 'faults.json');
  fs.writeFileSync(faults, JSON.stringify(cpuBound ? FAULTS_CPU_BOUND : FAULTS_LIVE));
  try {
    const results: Partial<Record<'sync' | 'async', DemoJson>> = {};
    for (const mode of order) {
      process.stderr.write(`bench async: ${mode} mode${mode === order[1] ? ', same budget' : ''}\n`);
      results[mode] = await demo(out, mode, faults, budget, args);
    }
    const sync = results.sync!;
    const asy = results.async!;
    const held = noEval ? undefined : await heldOut(out, k, process.env);
    const st = asy.state.staleness;
    const episodes = (d: DemoJson): number => d.state.rounds.reduce((a, r) => a + r.episodes, 0);
    return {
      bench: 'async',
      order: order.join(','),
      latency: cpuBound ? 'cpu-bound' : 'live',
      rounds: sync.state.rounds.length,
      train_s_sync: r3(trainS(sync)),
      train_s_async: r3(trainS(asy)),
      episodes_sync: episodes(sync),
      episodes_async: episodes(asy),
      dispatched_sync: sync.state.counters['dispatched'] ?? 0,
      dispatched_async: asy.state.counters['dispatched'] ?? 0,
      episodes_per_s_sync: r3(episodes(sync) / Math.max(1e-9, trainS(sync))),
      episodes_per_s_async: r3(episodes(asy) / Math.max(1e-9, trainS(asy))),
      load_avg_sync: r3(loadMeans['sync'] ?? 0),
      load_avg_async: r3(loadMeans['async'] ?? 0),
      stale_dropped: st?.dropped ?? 0,
      staleness_counts: st?.counts ?? [],
      staleness_p50: st?.p50 ?? 0,
      round_s_sync: sync.state.rounds.map((r) => r3(r.wallS + (r.publishS ?? 0))),
      round_s_async: asy.state.rounds.map((r) => r3(r.wallS + (r.publishS ?? 0))),
      curve_sync: sync.state.rounds.map((r) => r3(r.successRate)),
      curve_async: asy.state.rounds.map((r) => r3(r.successRate)),
      success_last3_sync: r3(sync.report.success_last3),
      success_last3_async: r3(asy.report.success_last3),
      ...(held
        ? {
            held_out_tasks: held.tasks,
            held_out_samples_sync: held.samples.sync,
            held_out_samples_async: held.samples.async,
            held_out_wall_s: r3(held.wallS),
            success_diff_se: r3(held.diffSe),
          }
        : {}),
      speedup: r3(trainS(sync) / Math.max(1e-9, trainS(asy))),
      success_sync: r3(held ? held.success.sync : sync.report.success_last3),
      success_async: r3(held ? held.success.async : asy.report.success_last3),
      staleness_p99: st?.p99 ?? 0,
    };
  } finally {
    if (process.env['OWRL_BENCH_KEEP']) process.stderr.write(`bench async: kept ${out}\n`);
    else fs.rmSync(out, { recursive: true, force: true });
  }
}
