// Results of `owrl eval` (pure): one record per scored rollout, appended to results.jsonl as it
// comes in; which (task, sample) slots are finished, which still need a rollout and at which
// attempt; and the summary: success by suite, family and difficulty, pass@1 and pass@k (the
// unbiased estimator over the samples of a task), termination classes and exclusions by cause.
import { excludedByFault } from '../run/report.js';

export type EvalOutcome = 'success' | 'failure' | 'excluded';

/** One scored rollout (or one the eval gave up waiting for): a line of results.jsonl. */
export interface EvalRecord {
  /** Index of the task in the task file (0-based). */
  index: number;
  task: string;
  sample: number;
  attempt: number;
  trajectory_id: string;
  suite: string;
  family: string;
  difficulty: number;
  outcome: EvalOutcome;
  /** Termination class (COMPLETED, ENV_ERROR, …); UNSPECIFIED when no trajectory came back. */
  termination: string;
  reason: string;
  /** For `excluded`: the cause (`env_error:dns`, `judge:timeout`, `eval:rollout_timeout`, …). */
  excluded_reason?: string;
  /** For success/failure: who decided (verifier, model, rule, format). */
  verdict_source?: string;
  steps: number;
  policy_version: number;
  at_ms: number;
}

export interface EvalTaskInfo {
  index: number;
  id: string;
  suite: string;
  family: string;
  difficulty: number;
}

/** A rollout still to run: slot (task index, sample) at `attempt`. */
export interface PendingRollout {
  index: number;
  sample: number;
  attempt: number;
}

/** Per (task, sample): the record that settles it, or the attempt to run next. */
export class EvalLedger {
  /** Records by slot key, in arrival order. */
  private readonly bySlot = new Map<string, EvalRecord[]>();
  readonly records: EvalRecord[] = [];

  constructor(
    readonly tasks: readonly EvalTaskInfo[],
    readonly samples: number,
    readonly maxAttempts: number,
  ) {
    if (!Number.isInteger(samples) || samples < 1) throw new RangeError(`samples per task must be an integer >= 1, got ${samples}`);
    if (!Number.isInteger(maxAttempts) || maxAttempts < 1) throw new RangeError(`max attempts must be an integer >= 1, got ${maxAttempts}`);
  }

  private static key(index: number, sample: number): string {
    return `${index}/${sample}`;
  }

  /** The outcome that settles a slot, or null while it still needs a rollout. */
  settled(index: number, sample: number): EvalRecord | null {
    const rs = this.bySlot.get(EvalLedger.key(index, sample)) ?? [];
    const decided = rs.find((r) => r.outcome !== 'excluded');
    if (decided) return decided;
    const excluded = rs.filter((r) => r.outcome === 'excluded');
    return excluded.length >= this.maxAttempts ? (excluded[excluded.length - 1] ?? null) : null;
  }

  /**
   * Adds a record; returns false (and keeps nothing) when its slot is already settled (a duplicate
   * delivery, or a late result of an attempt that was given up on) or unknown.
   */
  add(r: EvalRecord): boolean {
    if (!this.tasks[r.index] || r.sample < 0 || r.sample >= this.samples) return false;
    if (this.settled(r.index, r.sample)) return false;
    const k = EvalLedger.key(r.index, r.sample);
    const rs = this.bySlot.get(k) ?? [];
    if (rs.some((x) => x.trajectory_id === r.trajectory_id)) return false;
    rs.push(r);
    this.bySlot.set(k, rs);
    this.records.push(r);
    return true;
  }

  /** Slots with no settling record, each with its next attempt number. */
  pending(): PendingRollout[] {
    const out: PendingRollout[] = [];
    for (const t of this.tasks) {
      for (let s = 0; s < this.samples; s++) {
        if (this.settled(t.index, s)) continue;
        const tried = (this.bySlot.get(EvalLedger.key(t.index, s)) ?? []).length;
        out.push({ index: t.index, sample: s, attempt: tried });
      }
    }
    return out;
  }

  /** Tasks whose every sample is settled. */
  finishedTasks(): number {
    return this.tasks.filter((t) => Array.from({ length: this.samples }, (_, s) => this.settled(t.index, s)).every((r) => r !== null)).length;
  }
}

/**
 * Unbiased pass@k of one task from `n` valid samples with `c` successes:
 * 1 − C(n−c, k) / C(n, k) (Chen et al. 2021), computed as a product to stay exact for large n.
 * @throws RangeError when k > n (the estimator is undefined).
 */
export function passAtK(n: number, c: number, k: number): number {
  if (!Number.isInteger(n) || !Number.isInteger(c) || !Number.isInteger(k) || c < 0 || c > n || k < 1) throw new RangeError(`passAtK(n=${n}, c=${c}, k=${k}): need integers with 0 <= c <= n and k >= 1`);
  if (k > n) throw new RangeError(`passAtK: k=${k} exceeds the n=${n} samples`);
  if (n - c < k) return 1;
  let fail = 1;
  for (let i = n - c + 1; i <= n; i++) fail *= 1 - k / i;
  return 1 - fail;
}

export interface GroupFigures {
  /** Tasks of this group (whatever their outcome). */
  tasks: number;
  /** Tasks with at least one valid (non-excluded) sample: the denominator of pass@1. */
  scored_tasks: number;
  samples: number;
  successes: number;
  /** Mean over scored tasks of successes / valid samples. */
  pass_at_1: number;
  /** pass@k for k = 1 … samples per task, over tasks with at least k valid samples. */
  pass_at: Record<string, number>;
}

export interface EvalSummary {
  tasks: number;
  samples_per_task: number;
  finished_tasks: number;
  /** Settled slots (task × sample). */
  settled_samples: number;
  overall: GroupFigures;
  by_suite: Record<string, GroupFigures>;
  /** Keyed `suite/family`. */
  by_family: Record<string, GroupFigures>;
  by_difficulty: Record<string, GroupFigures>;
  /** Termination classes of every scored rollout (excluded attempts included). */
  terminations: Record<string, number>;
  /** Excluded attempts by cause (each attempt counts, retried or not). */
  excluded: Record<string, number>;
  excluded_by_fault: Record<string, number>;
  /** Samples that stayed excluded after every attempt: left out of success figures. */
  excluded_samples: number;
  /** Tasks with no valid sample at all. */
  excluded_tasks: number;
}

const r4 = (x: number): number => Number(x.toFixed(4));

function figures(tasks: readonly EvalTaskInfo[], ledger: EvalLedger): GroupFigures {
  const k = ledger.samples;
  let samples = 0;
  let successes = 0;
  let scored = 0;
  let p1 = 0;
  const sums = new Array<number>(k + 1).fill(0);
  const counts = new Array<number>(k + 1).fill(0);
  for (const t of tasks) {
    let n = 0;
    let c = 0;
    for (let s = 0; s < k; s++) {
      const r = ledger.settled(t.index, s);
      if (!r || r.outcome === 'excluded') continue;
      n++;
      if (r.outcome === 'success') c++;
    }
    samples += n;
    successes += c;
    if (n === 0) continue;
    scored++;
    p1 += c / n;
    for (let j = 1; j <= Math.min(n, k); j++) {
      sums[j] = (sums[j] ?? 0) + passAtK(n, c, j);
      counts[j] = (counts[j] ?? 0) + 1;
    }
  }
  const passAt: Record<string, number> = {};
  for (let j = 1; j <= k; j++) if ((counts[j] ?? 0) > 0) passAt[String(j)] = r4((sums[j] ?? 0) / (counts[j] ?? 1));
  return { tasks: tasks.length, scored_tasks: scored, samples, successes, pass_at_1: r4(scored ? p1 / scored : 0), pass_at: passAt };
}

function groupBy(tasks: readonly EvalTaskInfo[], key: (t: EvalTaskInfo) => string, ledger: EvalLedger, order: (a: string, b: string) => number): Record<string, GroupFigures> {
  const groups = new Map<string, EvalTaskInfo[]>();
  for (const t of tasks) groups.set(key(t), [...(groups.get(key(t)) ?? []), t]);
  return Object.fromEntries([...groups.keys()].sort(order).map((g) => [g, figures(groups.get(g) ?? [], ledger)]));
}

export function summarize(ledger: EvalLedger): EvalSummary {
  const tasks = ledger.tasks;
  const terminations: Record<string, number> = {};
  const excluded: Record<string, number> = {};
  for (const r of ledger.records) {
    terminations[r.termination] = (terminations[r.termination] ?? 0) + 1;
    if (r.outcome === 'excluded') {
      const cause = r.excluded_reason || 'excluded';
      excluded[cause] = (excluded[cause] ?? 0) + 1;
    }
  }
  let settledSamples = 0;
  let excludedSamples = 0;
  let excludedTasks = 0;
  for (const t of tasks) {
    let valid = 0;
    for (let s = 0; s < ledger.samples; s++) {
      const r = ledger.settled(t.index, s);
      if (!r) continue;
      settledSamples++;
      if (r.outcome === 'excluded') excludedSamples++;
      else valid++;
    }
    if (valid === 0 && Array.from({ length: ledger.samples }, (_, s) => ledger.settled(t.index, s)).every((r) => r !== null)) excludedTasks++;
  }
  const alpha = (a: string, b: string) => a.localeCompare(b);
  return {
    tasks: tasks.length,
    samples_per_task: ledger.samples,
    finished_tasks: ledger.finishedTasks(),
    settled_samples: settledSamples,
    overall: figures(tasks, ledger),
    by_suite: groupBy(tasks, (t) => t.suite || '(none)', ledger, alpha),
    by_family: groupBy(tasks, (t) => `${t.suite || '(none)'}/${t.family || '(none)'}`, ledger, alpha),
    by_difficulty: groupBy(tasks, (t) => String(t.difficulty), ledger, (a, b) => Number(a) - Number(b)),
    terminations: Object.fromEntries(Object.entries(terminations).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))),
    excluded: Object.fromEntries(Object.entries(excluded).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))),
    excluded_by_fault: excludedByFault(excluded),
    excluded_samples: excludedSamples,
    excluded_tasks: excludedTasks,
  };
}

/**
 * Parses results.jsonl. A torn last line (the process was killed mid-write) is dropped; any
 * other bad line is an error naming the file and line.
 */
export function parseResults(text: string, file: string): EvalRecord[] {
  const lines = text.split('\n');
  const out: EvalRecord[] = [];
  lines.forEach((line, i) => {
    if (line.trim() === '') return;
    let r: unknown;
    try {
      r = JSON.parse(line);
    } catch (e) {
      const last = lines.slice(i + 1).every((l) => l.trim() === '');
      if (last && !text.endsWith('\n')) return;
      throw new Error(`${file}:${i + 1}: not a JSON record: ${(e as Error).message}`, { cause: e });
    }
    const rec = r as Partial<EvalRecord>;
    if (typeof rec !== 'object' || rec === null || typeof rec.index !== 'number' || typeof rec.sample !== 'number' || typeof rec.attempt !== 'number' || !['success', 'failure', 'excluded'].includes(String(rec.outcome))) {
      throw new Error(`${file}:${i + 1}: not an eval result record (needs index, sample, attempt and outcome success|failure|excluded)`);
    }
    out.push(rec as EvalRecord);
  });
  return out;
}
