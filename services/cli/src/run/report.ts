// The report of a finished run: learning curve, success by difficulty, failure breakdown and the
// accounting of every dispatched rollout; written as JSON, Markdown and HTML, with SVG plots of the
// learning curve, success by difficulty and by site, and terminations over time.
import fs from 'node:fs';
import path from 'node:path';
import { escapeXml, hbars, lineChart, stackedBars } from '@owrl/charts';
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
  /** Update health per round that trained: one entry per PPO epoch. */
  update_health: { round: number; epochs: { epoch: number; loss: number; clip_fraction: number; approx_kl: number; grad_norm: number; mean_ratio: number; learning_rate: number }[] }[];
  /** Clip fraction of the last PPO epoch over the run (mean and max over updates). */
  last_epoch_clip: { mean: number; max: number };
  /** The update rule of the run (RunState.update); null when the learner did not say. */
  update_rule: { ppo_epochs: number; minibatches: number; clip_low: number; clip_high: number; learning_rate: number; trust_kl: number } | null;
  /** The failure rules of the run (RunState.failure_rules) and what they decided; null when the learner did not say. */
  failure_rules: { timeout_blame: string; timeout_policy_share: number; max_attempts: number; exhausted_groups: string; timeouts_policy: number; timeouts_site: number; groups_exhausted: number } | null;
  /** Behaviour-cloning warm-up before RL (demo --warmup). */
  warmup?: WarmupReport;
  /** Per round: success, success by difficulty and by suite, terminations and exclusions (for the plots). */
  per_round: RoundDetail[];
}

export interface RoundDetail {
  round: number;
  success: number;
  by_difficulty: Record<string, { episodes: number; successes: number }>;
  by_suite: Record<string, { episodes: number; successes: number }>;
  terminations: Record<string, number>;
  excluded: Record<string, number>;
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
  const r4 = (x: number) => Number(x.toFixed(4));
  const health = s.rounds
    .filter((r) => r.epochs.length > 0)
    .map((r) => ({
      round: Number(r.round) + 1,
      epochs: r.epochs.map((e) => ({
        epoch: e.epoch,
        loss: r4(e.loss),
        clip_fraction: r4(e.clipFraction),
        approx_kl: r4(e.approxKl),
        grad_norm: r4(e.gradNorm),
        mean_ratio: r4(e.meanRatio),
        learning_rate: Number(e.learningRate.toPrecision(4)),
      })),
    }));
  const lastClips = health.map((h) => h.epochs[h.epochs.length - 1]?.clip_fraction ?? 0);
  return {
    update_health: health,
    last_epoch_clip: { mean: r4(mean(lastClips)), max: r4(Math.max(0, ...lastClips)) },
    update_rule: s.update
      ? { ppo_epochs: s.update.ppoEpochs, minibatches: s.update.minibatches, clip_low: s.update.clipLow, clip_high: s.update.clipHigh, learning_rate: s.update.learningRate, trust_kl: s.update.trustKl }
      : null,
    failure_rules: s.failureRules
      ? {
          timeout_blame: s.failureRules.timeoutBlame,
          timeout_policy_share: s.failureRules.timeoutPolicyShare,
          max_attempts: s.failureRules.maxAttempts,
          exhausted_groups: s.failureRules.exhaustedGroups,
          timeouts_policy: Number(s.counters?.timeoutsPolicy ?? 0n),
          timeouts_site: Number(s.counters?.timeoutsSite ?? 0n),
          groups_exhausted: Number(s.counters?.groupsExhausted ?? 0n),
        }
      : null,
    run_id: s.runId,
    // The last round's number + 1: on a long run RunState.rounds holds old rounds thinned.
    rounds: s.rounds.length > 0 ? Number(s.rounds[s.rounds.length - 1]?.round ?? 0n) + 1 : 0,
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
    per_round: s.rounds.map((r) => ({
      round: Number(r.round),
      success: Number(r.successRate.toFixed(4)),
      by_difficulty: Object.fromEntries(r.byDifficulty.map((d) => [String(d.difficulty), { episodes: d.episodes, successes: d.successes }])),
      by_suite: Object.fromEntries(r.bySuite.map((d) => [d.suite, { episodes: d.episodes, successes: d.successes }])),
      terminations: { ...r.terminations },
      excluded: { ...r.excluded },
    })),
  };
}

const pct = (v: number): string => `${Math.round(v * 1000) / 10}%`;

/** The report's plots as SVG documents, by file name. */
export function reportCharts(r: RunReport): Record<string, string> {
  const rounds = r.per_round ?? [];
  const keys = (pick: (d: RoundDetail) => Record<string, unknown>): string[] => [...new Set(rounds.flatMap((d) => Object.keys(pick(d))))].sort();
  const rate = (e: { episodes: number; successes: number } | undefined): number => (e && e.episodes > 0 ? e.successes / e.episodes : NaN);
  const suites = keys((d) => d.by_suite);
  const curve = lineChart({
    title: 'Learning curve: success per round',
    xLabel: 'round',
    yMin: 0,
    yMax: 1,
    yFormat: pct,
    width: 720,
    height: 280,
    series: [
      { name: 'all', points: rounds.length ? rounds.map((d) => [d.round, d.success] as [number, number]) : r.curve.map((x, i) => [i + 1, x] as [number, number]) },
      ...suites.map((s) => ({ name: s, points: rounds.map((d) => [d.round, rate(d.by_suite[s])] as [number, number]) })),
    ],
  });
  const diffs = keys((d) => d.by_difficulty).sort((a, b) => Number(a) - Number(b));
  const byDifficulty = lineChart({
    title: 'Success by difficulty (steps) per round',
    xLabel: 'round',
    yMin: 0,
    yMax: 1,
    yFormat: pct,
    width: 720,
    height: 280,
    series: diffs.map((k) => ({ name: `${k} steps`, points: rounds.map((d) => [d.round, rate(d.by_difficulty[k])] as [number, number]) })),
  });
  const bySite = hbars({
    title: 'Success by site: last three rounds (first three in brackets)',
    max: 1,
    format: pct,
    width: 720,
    bars: Object.entries(r.by_suite).map(([k, e]) => ({ label: k, value: e.last3.rate, note: `(${pct(e.first3.rate)})` })),
  });
  const classes = keys((d) => d.terminations);
  const terminations = stackedBars({
    title: 'Terminations per round',
    xLabel: 'round',
    width: 720,
    height: 280,
    categories: rounds.map((d) => d.round),
    series: classes.map((c) => ({ name: c, values: rounds.map((d) => d.terminations[c] ?? 0) })),
  });
  return { 'learning-curve.svg': curve, 'success-by-difficulty.svg': byDifficulty, 'success-by-site.svg': bySite, 'terminations.svg': terminations };
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

export function writeReport(dir: string, r: RunReport): { json: string; markdown: string; html: string; charts: string[] } {
  fs.mkdirSync(dir, { recursive: true });
  const json = path.join(dir, 'report.json');
  const markdown = path.join(dir, 'report.md');
  const html = path.join(dir, 'report.html');
  fs.writeFileSync(json, JSON.stringify(r, null, 2) + '\n');
  const charts = reportCharts(r);
  for (const [name, svg] of Object.entries(charts)) fs.writeFileSync(path.join(dir, name), svg + '\n');
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

Learning curve: \`${sparkline(r.curve)}\` (plots: [HTML report](report.html))

![learning curve](learning-curve.svg)

![success by difficulty](success-by-difficulty.svg)

![success by site](success-by-site.svg)

![terminations per round](terminations.svg)

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

${failureRulesText(r)}

## Update health (per PPO epoch: loss, clip fraction, approximate KL before each minibatch's step, gradient norm, mean ratio, effective learning rate)

${r.update_rule ? `Update rule: ${r.update_rule.ppo_epochs} epoch(s) × ${r.update_rule.minibatches} minibatch(es), one Adam step each (lr ${r.update_rule.learning_rate || 'trainer default'}), clip ${r.update_rule.clip_low}/${r.update_rule.clip_high}, KL trust region ${r.update_rule.trust_kl || 'off'} per minibatch.\n\n` : ''}Clip fraction of the last epoch: mean ${(r.last_epoch_clip.mean * 100).toFixed(1)} %, max ${(r.last_epoch_clip.max * 100).toFixed(1)} %.

| round | epoch | loss | clip | KL | grad norm | mean ratio | lr |
| --- | --- | --- | --- | --- | --- | --- | --- |
${r.update_health.flatMap((h) => h.epochs.map((e) => `| ${h.round} | ${e.epoch} | ${e.loss} | ${(e.clip_fraction * 100).toFixed(1)} % | ${e.approx_kl} | ${e.grad_norm} | ${e.mean_ratio} | ${e.learning_rate} |`)).join('\n') || '| (no update) | | | | | | | |'}

## Accounting

| counter | value |
| --- | --- |
${table(r.counters)}
`,
  );
  fs.writeFileSync(html, reportHtml(fs.readFileSync(markdown, 'utf8'), charts));
  return { json, markdown, html, charts: Object.keys(charts).map((n) => path.join(dir, n)) };
}

/**
 * The HTML version of report.md: its headings, paragraphs and tables as HTML, with the plots
 * inline (a self-contained file). Only the Markdown this module writes is handled.
 */
export function reportHtml(markdown: string, charts: Record<string, string>): string {
  const out: string[] = [];
  const lines = markdown.split('\n');
  const inline = (t: string): string => escapeXml(t).replace(/`([^`]*)`/g, '<code>$1</code>');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    const img = /^!\[[^\]]*\]\(([^)]+)\)$/.exec(line);
    if (img) {
      const svg = charts[img[1] ?? ''];
      if (svg) out.push(`<figure>${svg}</figure>`);
      continue;
    }
    if (line.startsWith('# ')) out.push(`<h1>${inline(line.slice(2))}</h1>`);
    else if (line.startsWith('## ')) out.push(`<h2>${inline(line.slice(3))}</h2>`);
    else if (line.startsWith('|')) {
      const rows: string[][] = [];
      for (; i < lines.length && (lines[i] ?? '').startsWith('|'); i++) {
        const cells = (lines[i] ?? '').split('|').slice(1, -1).map((c) => c.trim());
        if (!cells.every((c) => /^-+$/.test(c))) rows.push(cells);
      }
      i--;
      const [head, ...body] = rows;
      out.push(`<table><thead><tr>${(head ?? []).map((c) => `<th>${inline(c)}</th>`).join('')}</tr></thead><tbody>${body.map((r) => `<tr>${r.map((c) => `<td>${inline(c)}</td>`).join('')}</tr>`).join('')}</tbody></table>`);
    } else if (line.trim() !== '') out.push(`<p>${inline(line).replace(/\[HTML report\]\(report.html\)/, 'this page')}</p>`);
  }
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>owrl run report</title><style>body{font:14px/1.45 system-ui,sans-serif;max-width:960px;margin:20px auto;padding:0 12px;color:#1d1d1f}table{border-collapse:collapse;margin:6px 0}th,td{border:1px solid #ddd;padding:3px 8px;text-align:left}th{background:#f3f3f3}figure{margin:10px 0}svg{max-width:100%;height:auto;border:1px solid #eee}code{background:#f1f1f1;padding:0 3px}</style></head><body>${out.join('\n')}</body></html>\n`;
}

/** The failure rules of the run and what they decided, as a paragraph of the report. */
function failureRulesText(r: RunReport): string {
  const f = r.failure_rules;
  if (!f) return 'Failure rules: not stated by the learner.';
  const blame =
    f.timeout_blame === 'timings'
      ? `a task timeout is the policy's when it spent at least ${Math.round(f.timeout_policy_share * 100)} % of the episode's wall time deciding (scored 0 and trained), else the site's (excluded and re-dispatched)`
      : f.timeout_blame === 'policy'
        ? 'every task timeout is the policy\'s (scored 0 and trained)'
        : "every task timeout is the site's (excluded and re-dispatched)";
  return `Failure rules: ${blame}; a sample gets ${f.max_attempts} attempt(s), and a group one of whose samples spends them is dropped whole (${f.exhausted_groups}). This run: ${f.timeouts_policy} timeout(s) blamed on the policy, ${f.timeouts_site} on the site, ${f.groups_exhausted} group(s) dropped for a spent budget.`;
}
