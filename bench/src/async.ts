// Async benchmark: the same training budget (rounds × kept groups per update) in sync and in
// async mode, one after the other in this one invocation, on the four-site mix with long-tailed
// episode times: the sites' latency fault rules delay a few page loads by seconds and many by a
// fraction of one, so in sync mode most rounds wait for a straggler while slots stand idle.
// Real NATS, Chromium and separate processes (owrl demo). Figures: training wall time of each mode
// (first dispatch to the last update), speedup, success over the last three rounds, staleness.
// `--order async,sync` runs async first (the machine's load can drift during a run: measure both
// orders). Other arguments go to both demos.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

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
/** Training wall time: every round from its first dispatch to its published update. */
const trainS = (d: DemoJson): number => d.state.rounds.reduce((a, r) => a + r.wallS + (r.publishS ?? 0), 0);

/** Splits `--order sync,async|async,sync` off the arguments passed on to the demos. */
function orderOf(args: string[]): { order: ['sync', 'async'] | ['async', 'sync']; rest: string[] } {
  const i = args.findIndex((a) => a === '--order' || a.startsWith('--order='));
  if (i < 0) return { order: ['sync', 'async'], rest: args };
  const value = args[i]!.includes('=') ? args[i]!.slice('--order='.length) : args[i + 1];
  const rest = args.filter((_, k) => k !== i && !(k === i + 1 && !args[i]!.includes('=')));
  if (value === 'sync,async') return { order: ['sync', 'async'], rest };
  if (value === 'async,sync') return { order: ['async', 'sync'], rest };
  throw new Error(`--order ${value ?? ''}: expected sync,async or async,sync`);
}

export async function asyncBench(argv: string[]): Promise<Record<string, unknown>> {
  const { order, rest } = orderOf(argv);
  const cpuBound = rest.includes('--cpu-bound');
  const args = rest.filter((a) => a !== '--cpu-bound');
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
      speedup: r3(trainS(sync) / Math.max(1e-9, trainS(asy))),
      success_sync: r3(sync.report.success_last3),
      success_async: r3(asy.report.success_last3),
      staleness_p99: st?.p99 ?? 0,
    };
  } finally {
    if (process.env['OWRL_BENCH_KEEP']) process.stderr.write(`bench async: kept ${out}\n`);
    else fs.rmSync(out, { recursive: true, force: true });
  }
}
