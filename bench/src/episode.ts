// Episode CPU benchmark: a fixed set of episodes (the default demo's four-site task mix, a fixed
// task seed, so the same rollout seeds and sessions every run) through ONE real actor with real
// Chromium against the bundled sites, no latency faults, driven by `owrl eval` (actor, judge and
// sites as separate processes). While it runs, the CPU time of every process of the eval's tree
// is read from /proc/<pid>/stat and split by process: the actor's node process, its Chromium
// process tree, the sites, the judge, NATS and the eval driver. Figures: CPU ms per episode step
// per process, counted between the first and the last scored result (so process start-up, policy
// load and Chromium launch stay out), plus the whole run's totals.
//
//   npm run bench -- episode [--episodes 24] [--slots 1] [--max-steps 6] [--policy uniform|FILE.onnx] [--port 47813]
//
// CPU time does not depend on how busy the machine is, to first order (caches and frequency
// aside), so the figures compare across runs where wall time does not; the load average is
// printed beside them anyway.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { readProcStat } from '@owrl/core';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const OWRL = path.join(ROOT, 'services/cli/bin/owrl.js');
/** The default demo's suites and difficulties (owrl demo). */
const SUITES = ['shop', 'travel', 'wiki', 'mail'];
const DIFFICULTIES = '1,2,3';
/** Task seed: the same tasks, hence the same eval id, trajectory ids, rollout seeds and sessions. */
const TASK_SEED = 7;

const say = (m: string): void => {
  process.stderr.write(`[bench episode] ${m}\n`);
};
const r2 = (x: number): number => Number(x.toFixed(2));

let clkTck = 100;
try {
  clkTck = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
} catch {
  /* keep 100, the Linux default */
}

type Group = 'actor' | 'chromium' | 'sites' | 'judge' | 'nats' | 'driver';
const GROUPS: Group[] = ['actor', 'chromium', 'sites', 'judge', 'nats', 'driver'];

interface Stat {
  pid: number;
  ppid: number;
  /** utime + stime, ms. */
  own: number;
  /** cutime + cstime (children already reaped), ms. */
  reaped: number;
}

function readStat(pid: number): Stat | null {
  const p = readProcStat(pid);
  return p ? { pid, ppid: p.ppid, own: (p.cpuTicks * 1000) / clkTck, reaped: (p.reapedTicks * 1000) / clkTck } : null;
}

function cmdline(pid: number): string {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
  } catch {
    return '';
  }
}

/**
 * CPU ms by group of the tree under `root` now. The actor counts its own time only (Chromium,
 * its child, is counted apart); every other group counts its processes' own time plus what their
 * reaped children used, which covers the short-lived renderers Chromium's zygote reaps.
 */
function sample(root: number, byType?: Map<string, number>): Record<Group, number> {
  const stats: Stat[] = [];
  for (const n of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(n)) continue;
    const s = readStat(Number(n));
    if (s) stats.push(s);
  }
  const kids = new Map<number, Stat[]>();
  for (const s of stats) {
    const l = kids.get(s.ppid);
    if (l) l.push(s);
    else kids.set(s.ppid, [s]);
  }
  const out = Object.fromEntries(GROUPS.map((g) => [g, 0])) as Record<Group, number>;
  const rootStat = stats.find((s) => s.pid === root);
  if (!rootStat) return out;
  const walk = (s: Stat, group: Group): void => {
    let g = group;
    if (group === 'driver') {
      const cmd = cmdline(s.pid);
      if (cmd.includes('services/actor/')) g = 'actor';
      else if (cmd.includes('services/judge/')) g = 'judge';
      else if (cmd.includes('services/sites/')) g = 'sites';
      else if (cmd.includes('nats-server')) g = 'nats';
    }
    if (g === 'actor' && group !== 'actor') {
      out.actor += s.own;
      for (const k of kids.get(s.pid) ?? []) walk(k, 'chromium');
      return;
    }
    // the driver's reaped children are the services themselves once they exit: counted apart
    out[g] += s.own + (g === 'driver' ? 0 : s.reaped);
    if (g === 'chromium' && byType) {
      const type = /--type=([\w-]+)/.exec(cmdline(s.pid))?.[1] ?? 'browser';
      byType.set(type, (byType.get(type) ?? 0) + s.own);
      // processes Chromium started and already reaped (renderers of closed contexts, reaped by the zygote)
      byType.set('reaped', (byType.get('reaped') ?? 0) + s.reaped);
    }
    for (const k of kids.get(s.pid) ?? []) walk(k, g);
  };
  walk(rootStat, 'driver');
  return out;
}

interface EvalRecord {
  steps: number;
  outcome: string;
  termination: string;
}

function readResults(file: string): EvalRecord[] {
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as EvalRecord);
}

function sampleTasks(out: string, episodes: number, port: number): string {
  const per = Math.ceil(episodes / SUITES.length);
  const lines: string[] = [];
  for (const suite of SUITES) {
    const text = execFileSync(process.execPath, [OWRL, 'tasks', 'sample', '--suite', suite, '--n', String(per), '--seed', String(TASK_SEED), '--difficulties', DIFFICULTIES, '--base-url', `http://127.0.0.1:${port}`], { encoding: 'utf8' });
    lines.push(...text.split('\n').filter((l) => l.trim() !== ''));
  }
  // round-robin over the suites so that any prefix holds the mix
  const bySuite = SUITES.map((_, i) => lines.slice(i * per, (i + 1) * per));
  const mixed: string[] = [];
  for (let k = 0; k < per; k++) for (const s of bySuite) if (s[k] !== undefined) mixed.push(s[k]!);
  const file = path.join(out, 'tasks.jsonl');
  fs.writeFileSync(file, mixed.slice(0, episodes).join('\n') + '\n');
  return file;
}

export async function episodeBench(argv: string[]): Promise<Record<string, unknown>> {
  const { values } = parseArgs({
    args: argv,
    options: { episodes: { type: 'string' }, slots: { type: 'string' }, 'max-steps': { type: 'string' }, policy: { type: 'string' }, port: { type: 'string' } },
  });
  const episodes = Number(values.episodes ?? '24');
  const slots = Number(values.slots ?? '1');
  const maxSteps = Number(values['max-steps'] ?? '6');
  const port = Number(values.port ?? '47813');
  const policy = values.policy ?? 'uniform';
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'owrl-bench-episode-'));
  const uptimeStart = os.loadavg();
  try {
    const tasks = sampleTasks(out, episodes, port);
    const evalDir = path.join(out, 'eval');
    const results = path.join(evalDir, 'results.jsonl');
    // OWRL_SITES_FAULTS unset: no latency faults, so the episodes measure CPU, not waiting.
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env)) if (v !== undefined && k !== 'OWRL_SITES_FAULTS' && k !== 'NATS_URL') env[k] = v;
    env['OWRL_LOG_LEVEL'] = process.env['OWRL_LOG_LEVEL'] ?? 'warn';
    const t0 = Date.now();
    const child = spawn(process.execPath, [OWRL, 'eval', '--tasks', tasks, '--policy', policy, '--actors', '1', '--slots', String(slots), '--max-steps', String(maxSteps), '--max-attempts', '1', '--out', evalDir, '--json', path.join(out, 'eval.json')], {
      stdio: ['ignore', 2, 2],
      env,
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    let done = false;
    void exited.then(() => (done = true));
    const pid = child.pid!;
    // Per-group maxima: a process's CPU only grows while it lives, and a group's figure drops
    // when a process exits unreaped by the group (the actor reaping Chromium at shutdown).
    const max = Object.fromEntries(GROUPS.map((g) => [g, 0])) as Record<Group, number>;
    type Mark = { at: Record<Group, number>; types: Map<string, number>; n: number; ms: number };
    let first: Mark | null = null;
    let last: Mark | null = null;
    let seen = 0;
    while (!done) {
      const types = new Map<string, number>();
      const s = sample(pid, types);
      for (const g of GROUPS) max[g] = Math.max(max[g], s[g]);
      const n = readResults(results).length;
      if (n > seen) {
        seen = n;
        const mark = { at: s, types, n, ms: Date.now() };
        if (first === null) first = mark;
        last = mark;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    const code = await exited;
    if (code !== 0) throw new Error(`owrl eval exited with code ${code}`);
    const recs = readResults(results);
    if (recs.length !== episodes) throw new Error(`${recs.length} of ${episodes} episodes recorded`);
    if (!first || !last || last.n <= first.n) throw new Error('too few results to measure between the first and the last');
    const stepsAll = recs.reduce((a, r) => a + r.steps, 0);
    // the episodes whose results arrived after the first mark ran within the window
    const windowSteps = recs.slice(first.n, last.n).reduce((a, r) => a + r.steps, 0);
    const per = (g: Group): number => (last!.at[g] - first!.at[g]) / windowSteps;
    const total = GROUPS.reduce((a, g) => a + per(g), 0);
    const chromiumByType: Record<string, number> = {};
    for (const [k, v] of last.types) chromiumByType[k] = r2((v - (first.types.get(k) ?? 0)) / windowSteps);
    const byOutcome: Record<string, number> = {};
    for (const r of recs) byOutcome[`${r.termination}`] = (byOutcome[`${r.termination}`] ?? 0) + 1;
    const uptimeEnd = os.loadavg();
    return {
      bench: 'episode',
      episodes,
      slots,
      max_steps: maxSteps,
      policy,
      steps: stepsAll,
      window_episodes: last.n - first.n,
      window_steps: windowSteps,
      window_s: r2((last.ms - first.ms) / 1000),
      successes: recs.filter((r) => r.outcome === 'success').length,
      terminations: byOutcome,
      run_cpu_s: Object.fromEntries(GROUPS.map((g) => [g, r2(max[g] / 1000)])),
      run_wall_s: r2((Date.now() - t0) / 1000),
      load_avg_start: uptimeStart.map(r2),
      load_avg_end: uptimeEnd.map(r2),
      uptime: `load average: ${uptimeEnd.map((x) => x.toFixed(2)).join(', ')}`,
      actor_cpu_ms_per_step: r2(per('actor')),
      chromium_cpu_ms_per_step: r2(per('chromium')),
      chromium_ms_per_step_by_type: chromiumByType,
      sites_cpu_ms_per_step: r2(per('sites')),
      judge_cpu_ms_per_step: r2(per('judge')),
      nats_cpu_ms_per_step: r2(per('nats')),
      driver_cpu_ms_per_step: r2(per('driver')),
      cpu_ms_per_step: r2(total),
    };
  } finally {
    if (process.env['OWRL_BENCH_KEEP']) say(`kept ${out}`);
    else fs.rmSync(out, { recursive: true, force: true });
  }
}
