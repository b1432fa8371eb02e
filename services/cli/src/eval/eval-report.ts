// The report of `owrl eval`: report.json (the summary and what this invocation did), report.md
// and a self-contained report.html with SVG plots of success by suite and by difficulty, and of
// termination classes, in the layout of the training report.
import fs from 'node:fs';
import path from 'node:path';
import { hbars, stackedBars } from '@owrl/charts';
import { exclusionFault, reportHtml } from '../run/report.js';
import type { EvalSummary, GroupFigures } from './eval-results.js';

export interface EvalReport {
  eval_id: string;
  tasks_file: string;
  /** What ran: the policy artifact (or backend) and its version. */
  policy: string;
  max_steps: number;
  temperature: number;
  max_attempts: number;
  summary: EvalSummary;
  /** This invocation: rollouts dispatched (first tries and re-dispatches), slots already settled when it started. */
  invocation: { dispatched: number; redispatched: number; received: number; resumed_settled_samples: number; wall_s: number };
  /** Invocations of this eval so far (1 for a fresh one). */
  invocations: number;
}

const pct = (v: number): string => `${(v * 100).toFixed(1)} %`;

/** Plots of the report as SVG documents, by file name. */
export function evalCharts(r: EvalReport): Record<string, string> {
  const k = r.summary.samples_per_task;
  const bars = (g: Record<string, GroupFigures>, label: (name: string) => string) =>
    Object.entries(g).map(([name, f]) => ({ label: label(name), value: f.pass_at_1, note: k > 1 && f.pass_at[String(k)] !== undefined ? `(pass@${k} ${pct(f.pass_at[String(k)] ?? 0)})` : `(${f.successes}/${f.samples})` }));
  const bySuite = hbars({ title: 'pass@1 by suite', max: 1, format: (v) => pct(v), width: 720, bars: bars(r.summary.by_suite, (n) => n) });
  const byDifficulty = hbars({ title: 'pass@1 by difficulty (steps)', max: 1, format: (v) => pct(v), width: 720, bars: bars(r.summary.by_difficulty, (n) => `${n} steps`) });
  const classes = Object.keys(r.summary.terminations);
  const terminations = stackedBars({
    title: 'Terminations of all rollouts',
    xLabel: '',
    width: 720,
    height: 240,
    categories: ['all'],
    series: classes.map((c) => ({ name: c, values: [r.summary.terminations[c] ?? 0] })),
  });
  return { 'eval-by-suite.svg': bySuite, 'eval-by-difficulty.svg': byDifficulty, 'eval-terminations.svg': terminations };
}

function groupTable(title: string, g: Record<string, GroupFigures>, k: number): string {
  const ks = Array.from({ length: k }, (_, i) => i + 1).filter((j) => j === 1 || j === k);
  const head = `| ${title} | tasks | scored tasks | samples | successes | ${ks.map((j) => `pass@${j}`).join(' | ')} |`;
  const sep = `| --- | --- | --- | --- | --- | ${ks.map(() => '---').join(' | ')} |`;
  const rows = Object.entries(g).map(([name, f]) => `| ${name} | ${f.tasks} | ${f.scored_tasks} | ${f.samples} | ${f.successes} | ${ks.map((j) => (f.pass_at[String(j)] === undefined ? 'n/a' : pct(f.pass_at[String(j)] ?? 0))).join(' | ')} |`);
  return [head, sep, ...rows].join('\n');
}

export function writeEvalReport(dir: string, r: EvalReport): { json: string; markdown: string; html: string } {
  fs.mkdirSync(dir, { recursive: true });
  const json = path.join(dir, 'report.json');
  const markdown = path.join(dir, 'report.md');
  const html = path.join(dir, 'report.html');
  fs.writeFileSync(json, JSON.stringify(r, null, 2) + '\n');
  const charts = evalCharts(r);
  for (const [name, svg] of Object.entries(charts)) fs.writeFileSync(path.join(dir, name), svg + '\n');
  const s = r.summary;
  const k = s.samples_per_task;
  const table = (m: Record<string, number>) =>
    Object.entries(m)
      .map(([key, v]) => `| ${key} | ${v} |`)
      .join('\n') || '| (none) | 0 |';
  const excludedRows =
    Object.entries(s.excluded)
      .map(([key, v]) => `| ${key} | ${exclusionFault(key)} | ${v} |`)
      .join('\n') || '| (none) | | 0 |';
  const passK = k > 1 ? `, pass@${k} ${s.overall.pass_at[String(k)] === undefined ? 'n/a' : pct(s.overall.pass_at[String(k)] ?? 0)}` : '';
  fs.writeFileSync(
    markdown,
    `# owrl eval ${r.eval_id}

Tasks ${r.tasks_file} (${s.tasks} tasks × ${k} sample${k > 1 ? 's' : ''}), policy ${r.policy}, at most ${r.max_steps} steps, temperature ${r.temperature}.

pass@1 ${pct(s.overall.pass_at_1)}${passK} over ${s.overall.scored_tasks} scored tasks (${s.overall.successes}/${s.overall.samples} samples succeeded); ${s.finished_tasks}/${s.tasks} tasks finished.
Excluded (infrastructure, never counted as failures): ${s.excluded_samples} samples after ${r.max_attempts} attempts each, ${s.excluded_tasks} tasks with no valid sample.

This invocation (${r.invocations} so far): ${r.invocation.dispatched} rollouts dispatched (${r.invocation.redispatched} re-dispatches), ${r.invocation.received} results, ${r.invocation.resumed_settled_samples} samples already settled before it, ${r.invocation.wall_s} s.

![pass@1 by suite](eval-by-suite.svg)

![pass@1 by difficulty](eval-by-difficulty.svg)

![terminations](eval-terminations.svg)

## By suite

${groupTable('suite', s.by_suite, k)}

## By family

${groupTable('suite/family', s.by_family, k)}

## By difficulty (steps)

${groupTable('steps', s.by_difficulty, k)}

## Terminations (every rollout, excluded attempts included)

| class | count |
| --- | --- |
${table(s.terminations)}

## Excluded attempts by cause (re-dispatched up to ${r.max_attempts} attempts per sample)

| cause | fault | count |
| --- | --- | --- |
${excludedRows}

| fault | count |
| --- | --- |
${table(s.excluded_by_fault)}
`,
  );
  fs.writeFileSync(html, reportHtml(fs.readFileSync(markdown, 'utf8'), charts).replace('<title>owrl run report</title>', '<title>owrl eval report</title>'));
  return { json, markdown, html };
}
