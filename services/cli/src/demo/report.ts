// The report of a finished run: learning curve, success by difficulty, failure breakdown and the
// accounting of every dispatched rollout; written as JSON and Markdown.
import fs from 'node:fs';
import path from 'node:path';
import { outcomeFault, parseOutcomeKey } from '@owrl/core';
import type { RunState } from '@owrl/proto';
import type { WarmupReport } from './warmup.js';

export interface RunReport {
  run_id: string;
  rounds: number;
  policy_version: number;
  success_first: number;
  success_last3: number;
  /** Success over the last three rounds on tasks of difficulty <= 3. */
  success_last3_easy: number;
  curve: number[];
  wall_s: number;
  by_difficulty_last3: Record<string, { episodes: number; successes: number; rate: number }>;
  /** Success per suite (bundled site): first three rounds and last three rounds. */
  by_suite: Record<string, { first3: { episodes: number; successes: number; rate: number }; last3: { episodes: number; successes: number; rate: number } }>;
  terminations: Record<string, number>;
  excluded: Record<string, number>;
  /** Excluded rollouts by whom their cause is attributed to: site, uncertain, ours, task, skip, judge. */
  excluded_by_fault: Record<string, number>;
  counters: Record<string, number>;
  /** Behaviour-cloning warm-up before RL (demo --warmup). */
  warmup?: WarmupReport;
}

/**
 * Whom an exclusion key is attributed to: the fault of its termination reason (@owrl/core) for
 * `<class>:<reason>` keys, `judge` for the judge's own (`judge:...`), `other` for anything else.
 */
export function exclusionFault(key: string): string {
  const o = parseOutcomeKey(key);
  if (o) return outcomeFault(o.cls, o.reason);
  return key.startsWith('judge:') ? 'judge' : 'other';
}

/** Sums exclusion counts by exclusionFault, largest first. */
export function excludedByFault(excluded: Record<string, number>): Record<string, number> {
  const out = new Map<string, number>();
  for (const [k, v] of Object.entries(excluded)) out.set(exclusionFault(k), (out.get(exclusionFault(k)) ?? 0) + v);
  return Object.fromEntries([...out].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])));
}

export function buildReport(s: RunState, wallS: number): RunReport {
  const curve = s.rounds.map((r) => Number(r.successRate.toFixed(4)));
  const last3 = s.rounds.slice(-3);
  const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
  const byD: RunReport['by_difficulty_last3'] = {};
  for (const r of last3) {
    for (const d of r.byDifficulty) {
      const e = (byD[String(d.difficulty)] ??= { episodes: 0, successes: 0, rate: 0 });
      e.episodes += d.episodes;
      e.successes += d.successes;
    }
  }
  const bySuite: RunReport['by_suite'] = {};
  const fold = (rounds: typeof last3, key: 'first3' | 'last3'): void => {
    for (const r of rounds) {
      for (const st of r.bySuite) {
        const e = (bySuite[st.suite] ??= { first3: { episodes: 0, successes: 0, rate: 0 }, last3: { episodes: 0, successes: 0, rate: 0 } })[key];
        e.episodes += st.episodes;
        e.successes += st.successes;
        e.rate = e.episodes ? e.successes / e.episodes : 0;
      }
    }
  };
  fold(s.rounds.slice(0, 3), 'first3');
  fold(last3, 'last3');
  let easyN = 0;
  let easyS = 0;
  for (const [k, e] of Object.entries(byD)) {
    e.rate = e.episodes ? e.successes / e.episodes : 0;
    if (Number(k) <= 3) {
      easyN += e.episodes;
      easyS += e.successes;
    }
  }
  const counters: Record<string, number> = {};
  for (const [k, v] of Object.entries(s.counters ?? {})) if (typeof v === 'bigint') counters[k] = Number(v);
  const excluded = Object.fromEntries(Object.entries(s.excluded).map(([k, v]) => [k, Number(v)]));
  return {
    run_id: s.runId,
    rounds: s.rounds.length,
    policy_version: Number(s.policyVersion),
    success_first: curve[0] ?? 0,
    success_last3: Number(mean(last3.map((r) => r.successRate)).toFixed(4)),
    success_last3_easy: Number((easyN ? easyS / easyN : 0).toFixed(4)),
    curve,
    wall_s: Number(wallS.toFixed(1)),
    by_difficulty_last3: byD,
    by_suite: bySuite,
    terminations: Object.fromEntries(Object.entries(s.terminations).map(([k, v]) => [k, Number(v)])),
    excluded,
    excluded_by_fault: excludedByFault(excluded),
    counters,
  };
}

function sparkline(xs: number[]): string {
  const bars = '▁▂▃▄▅▆▇█';
  return xs.map((x) => bars[Math.min(bars.length - 1, Math.max(0, Math.round(x * (bars.length - 1))))]).join('');
}

function warmupSection(w: WarmupReport): string {
  const d = Object.entries(w.held_out.by_difficulty)
    .map(([k, e]) => `| ${k} | ${e.tasks} | ${(e.rate * 100).toFixed(1)} % |`)
    .join('\n');
  return `
## Warm-up (behaviour cloning on scripted solvers, before RL)

${w.solved}/${w.demonstrations} demonstrations solved, ${w.samples}/${w.steps} steps expressible by the pointer policy, ${w.epochs} epochs (train loss ${w.train_loss.toFixed(3)}, accuracy ${(w.train_accuracy * 100).toFixed(1)} %), ${w.wall_s} s.
Held-out action accuracy ${(w.held_out_accuracy * 100).toFixed(1)} % (untrained ${(w.held_out_accuracy_before * 100).toFixed(1)} %); held-out task success ${(w.held_out.rate * 100).toFixed(1)} % (${w.held_out.success}/${w.held_out.tasks}):

| steps | tasks | success |
| --- | --- | --- |
${d}
`;
}

export function writeReport(dir: string, r: RunReport): { json: string; markdown: string } {
  fs.mkdirSync(dir, { recursive: true });
  const json = path.join(dir, 'report.json');
  const markdown = path.join(dir, 'report.md');
  fs.writeFileSync(json, JSON.stringify(r, null, 2) + '\n');
  const rows = r.curve.map((x, i) => `| ${i + 1} | ${(x * 100).toFixed(1)} % |`).join('\n');
  const diff = Object.entries(r.by_difficulty_last3)
    .map(([d, e]) => `| ${d} | ${e.episodes} | ${(e.rate * 100).toFixed(1)} % |`)
    .join('\n');
  const suites = Object.entries(r.by_suite)
    .map(([k, e]) => `| ${k} | ${(e.first3.rate * 100).toFixed(1)} % (${e.first3.episodes}) | ${(e.last3.rate * 100).toFixed(1)} % (${e.last3.episodes}) |`)
    .join('\n');
  const table = (m: Record<string, number>) =>
    Object.entries(m)
      .sort((a, b) => b[1] - a[1])
      .map(([k, v]) => `| ${k} | ${v} |`)
      .join('\n') || '| (none) | 0 |';
  const excludedRows =
    Object.entries(r.excluded)
      .sort((a, b) => b[1] - a[1])
      .map(([k, v]) => `| ${k} | ${exclusionFault(k)} | ${v} |`)
      .join('\n') || '| (none) | | 0 |';
  fs.writeFileSync(
    markdown,
    `# owrl run ${r.run_id}

Rounds ${r.rounds}, final policy v${r.policy_version}, wall time ${r.wall_s} s.

Success: first round ${(r.success_first * 100).toFixed(1)} %, mean of the last three ${(r.success_last3 * 100).toFixed(1)} % (tasks of 1–3 steps: ${(r.success_last3_easy * 100).toFixed(1)} %).

Learning curve: \`${sparkline(r.curve)}\`
${r.warmup ? warmupSection(r.warmup) : ''}
| round | success |
| --- | --- |
${rows}

## Success by difficulty (last three rounds)

| steps | episodes | success |
| --- | --- | --- |
${diff}

## Success by site (first three rounds → last three rounds; episodes in brackets)

| suite | first three | last three |
| --- | --- | --- |
${suites}

## Terminations

| class | count |
| --- | --- |
${table(r.terminations)}

## Excluded from training (infrastructure outcomes, re-dispatched)

| cause | fault | count |
| --- | --- | --- |
${excludedRows}

By fault (site: counts against the host; uncertain: the site, the network or a slow policy; ours: browser, sandbox, actor; task: the task's URL; skip: blacklisted host; judge: no verdict):

| fault | count |
| --- | --- |
${table(r.excluded_by_fault)}

## Accounting

| counter | value |
| --- | --- |
${table(r.counters)}
`,
  );
  return { json, markdown };
}
