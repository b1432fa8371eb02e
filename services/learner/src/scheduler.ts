// Task scheduling (pure): samples the tasks of a round from the pool, skipping blacklisted hosts,
// taking the suites of a mixed pool in turn (so every site gets its share of groups), favouring
// tasks whose recent success rate is strictly between 0 and 1 (they give signal), and admitting
// harder tasks as the easy ones are mastered (difficulty curriculum).
import { hostOf, SeededRng } from '@owrl/core';
import type { Task } from '@owrl/proto';

export interface SchedulerOptions {
  /** Weight of a task with a mixed recent record relative to one with no signal (default 4). */
  informativeWeight?: number;
  /** Recent outcomes kept per task (default 10). */
  window?: number;
  /** Recent outcomes per difficulty level that decide unlocking (default 20). */
  levelWindow?: number;
  /** A difficulty level opens once all easier levels reach this success rate (default 0.5). */
  unlockAt?: number;
  /** Difficulty levels open from the start (default 2). */
  initialLevels?: number;
  seed?: number;
}

/** The scheduler's state in a checkpoint (JSON). */
export interface SchedulerState {
  rng: number;
  turn: number;
  history: Record<string, number[]>;
  levelHistory: Record<string, number[]>;
}

export class TaskScheduler {
  private readonly tasks: Task[];
  private readonly history = new Map<string, number[]>();
  /**
   * Each task's weight from its history, kept as record() changes it: pick() runs for every few
   * results in async mode and weighed every task of the pool from its window each time (3 % of
   * the bus bench learner's CPU with 400 tasks).
   */
  private readonly weights = new Map<string, number>();
  /** Recent outcomes per difficulty level (what unlocking looks at). */
  private readonly levelHistory = new Map<number, number[]>();
  private readonly difficultyOf = new Map<string, number>();
  /** Start host of each task of the pool (same order), parsed once: pick() runs per dispatch. */
  private readonly hosts: string[];
  private readonly levels: number[];
  private readonly rng: SeededRng;
  private readonly opts: Required<SchedulerOptions>;
  /** Which suite goes first in the next pick (rotates, so no suite is always first). */
  private turn = 0;

  constructor(tasks: Task[], opts: SchedulerOptions = {}) {
    if (tasks.length === 0) throw new RangeError('the task pool is empty: give at least one task');
    this.tasks = tasks;
    this.opts = { informativeWeight: 4, window: 10, levelWindow: 20, unlockAt: 0.5, initialLevels: 2, seed: 1, ...opts };
    this.rng = new SeededRng(this.opts.seed);
    this.levels = [...new Set(tasks.map((t) => t.difficulty))].sort((a, b) => a - b);
    for (const t of tasks) this.difficultyOf.set(t.id, t.difficulty);
    this.hosts = tasks.map((t) => hostOf(t.startUrl));
  }

  /** Everything pick() depends on besides the pool, for checkpoints. */
  snapshot(): SchedulerState {
    return { rng: this.rng.state, turn: this.turn, history: Object.fromEntries(this.history), levelHistory: Object.fromEntries([...this.levelHistory].map(([k, v]) => [String(k), v])) };
  }

  /** Restores a snapshot(); outcomes of tasks no longer in the pool are dropped. */
  restore(s: SchedulerState): void {
    this.rng.state = s.rng;
    this.turn = s.turn;
    this.history.clear();
    this.weights.clear();
    for (const [id, h] of Object.entries(s.history)) {
      if (!this.difficultyOf.has(id)) continue;
      this.history.set(id, [...h]);
      this.weights.set(id, this.weightOf(h));
    }
    this.levelHistory.clear();
    for (const [k, v] of Object.entries(s.levelHistory)) this.levelHistory.set(Number(k), [...v]);
  }

  /** Records the success (1) or failure (0) of one trainable rollout of a task. */
  record(taskId: string, reward: number): void {
    const h = this.history.get(taskId) ?? [];
    h.push(reward > 0.5 ? 1 : 0);
    if (h.length > this.opts.window) h.shift();
    this.history.set(taskId, h);
    this.weights.set(taskId, this.weightOf(h));
    const level = this.difficultyOf.get(taskId);
    if (level === undefined) return;
    const lh = this.levelHistory.get(level) ?? [];
    lh.push(reward > 0.5 ? 1 : 0);
    if (lh.length > this.opts.levelWindow) lh.shift();
    this.levelHistory.set(level, lh);
  }

  /** A task's weight: 2 with no record yet, informativeWeight when its recent rate is strictly between 0 and 1, else 1. */
  private weightOf(h: readonly number[]): number {
    if (h.length === 0) return 2;
    const rate = h.reduce((a, b) => a + b, 0) / h.length;
    return rate > 0 && rate < 1 ? this.opts.informativeWeight : 1;
  }

  /** Success rate of the level's last `levelWindow` trainable rollouts; undefined before any. */
  levelSuccess(level: number): number | undefined {
    const h = this.levelHistory.get(level);
    return h && h.length > 0 ? h.reduce((a, b) => a + b, 0) / h.length : undefined;
  }

  /** Difficulty levels currently admitted: the first `initialLevels`, then each next level once every easier one has reached `unlockAt`. */
  openLevels(): number[] {
    const open: number[] = [];
    for (const [i, level] of this.levels.entries()) {
      if (i < this.opts.initialLevels) {
        open.push(level);
        continue;
      }
      // every easier level (all of them are in `open`) has reached the rate
      const mastered = open.every((l) => (this.levelSuccess(l) ?? -1) >= this.opts.unlockAt);
      if (mastered) open.push(level);
      else break;
    }
    return open;
  }

  /**
   * Picks `n` tasks (distinct while the pool allows) for the next round.
   * @param isBlocked host check (blacklist); blocked tasks are never picked.
   */
  pick(n: number, isBlocked: (host: string) => boolean = () => false): Task[] {
    const open = new Set(this.openLevels());
    // A host is asked once per pick (a pool has many tasks per site), never re-parsed: in async
    // mode pick() runs for every few results, and parsing every start URL each time was ~4 % of a
    // fleet learner's CPU (the bus bench).
    const blocked = new Map<string, boolean>();
    const eligible = this.tasks.filter((t, i) => {
      if (!open.has(t.difficulty)) return false;
      const host = this.hosts[i] ?? '';
      let b = blocked.get(host);
      if (b === undefined) blocked.set(host, (b = isBlocked(host)));
      return !b;
    });
    if (eligible.length === 0) return [];
    const weight = (t: Task): number => this.weights.get(t.id) ?? 2;
    // Suites take turns; within a suite, a weighted draw without replacement (refilled from that
    // suite's eligible tasks when it runs out). A task's weight is computed once per pick.
    type Entry = { task: Task; weight: number };
    const entriesOf = (suite: string): Entry[] => eligible.filter((t) => t.suite === suite).map((task) => ({ task, weight: weight(task) }));
    const suites = [...new Set(eligible.map((t) => t.suite))].sort();
    const pools = new Map(suites.map((s) => [s, entriesOf(s)]));
    const chosen: Task[] = [];
    for (let k = 0; chosen.length < n; k++) {
      const suite = suites[(this.turn + k) % suites.length] ?? '';
      let pool = pools.get(suite) ?? [];
      if (pool.length === 0) pools.set(suite, (pool = entriesOf(suite)));
      let x = this.rng.next() * pool.reduce((a, e) => a + e.weight, 0);
      let idx = 0;
      for (; idx < pool.length - 1; idx++) {
        x -= pool[idx]?.weight ?? 0;
        if (x <= 0) break;
      }
      const [e] = pool.splice(idx, 1);
      if (e) chosen.push(e.task);
    }
    this.turn = (this.turn + n) % Math.max(1, suites.length);
    return chosen;
  }
}
