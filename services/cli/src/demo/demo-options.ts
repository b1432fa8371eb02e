// The options of `owrl demo` and the checks made before anything starts (a module of its own, so
// that the CLI checks them without loading the demo's stack).

export interface DemoOptions {
  rounds: number;
  actors: number;
  slots: number;
  groupsPerRound: number;
  groupSize: number;
  curriculum: string;
  taskCount: number;
  difficulties: string;
  /** Comma-separated bundled suites the tasks come from. */
  suites: string;
  runId: string;
  outDir: string;
  jsonOut: string;
  timeoutS: number;
  /** Behaviour cloning on the scripted solvers before RL; its policy is the first version actors run. */
  warmup: boolean;
  /** Warm-up demonstration tasks per suite. */
  warmupTasks: number;
  warmupEpochs: number;
  /** The actors' policy backend: the built-in pointer policy, or a model behind an OpenAI-compatible endpoint. */
  policy: 'pointer' | 'openai';
  /** openai: the endpoint's API base (e.g. http://vllm:8000/v1), the served model, the engine. */
  baseUrl: string;
  model: string;
  engine: 'vllm' | 'sglang' | 'openai';
  /** host:port of an owrl.v1.Trainer every update goes to; '' = the built-in trainer in the learner. */
  trainer: string;
  /** The learner's mode (OWRL_MODE): sync or async. */
  mode: string;
}

/**
 * Rounds of a demo without --rounds (or OWRL_DEMO_ROUNDS), each recipe sized to about ten minutes
 * of RL on 2 cores where it was measured: 20 rounds after the warm-up; 40 from the uniform pointer
 * policy (--no-warmup), which needs the rounds and whose rounds are quicker: 20.5 s a round on the
 * quiet machine with the full Chromium (20 rounds in 410 s, against 626 s for the warm-up and 20
 * rounds), and about 0.62 of that with the headless shell the demo's actors use when it is
 * installed (the same three rounds in 136.6 s against 221.2 s), so 40 rounds count as about 510 s
 * of the reference's 584 s (28 before the shell). From the uniform policy 20 rounds gained +0.28
 * success on the four-site mix, 28 gained +0.20 to +0.52 over five seeds (mean +0.34), and 40
 * gained +0.511 and +0.378 on the two seeds (2 and 4) that 28 rounds took to +0.322 and +0.200
 * (README, Benchmarks, `learning`). A model behind an endpoint (--policy openai) keeps 20: its rounds are
 * the model's time, not this machine's.
 */
export const DEMO_ROUNDS = { afterWarmup: 20, fromUniform: 40 } as const;

/** The default round count of a demo (DEMO_ROUNDS). */
export function defaultDemoRounds(o: Pick<DemoOptions, 'warmup' | 'policy'>): number {
  return o.policy === 'pointer' && !o.warmup ? DEMO_ROUNDS.fromUniform : DEMO_ROUNDS.afterWarmup;
}

/**
 * The default --timeout of a demo of `rounds` rounds: 1800 s, or 90 s a round when that is longer
 * (the 20-round demo from the uniform policy took 1307 s, 65 s a round, on 2 cores under heavy
 * load), so that 40 rounds are not cut off where 20 rounds finished.
 */
export function defaultDemoTimeoutS(rounds: number): number {
  return Math.max(1800, rounds * 90);
}

/** The settings of a demo that are checked before anything starts. @throws Error naming the option. */
export function checkDemoPolicy(o: Pick<DemoOptions, 'policy' | 'baseUrl' | 'model' | 'trainer' | 'warmup'>): void {
  if (o.trainer !== '' && !/^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):\d{1,5}$/.test(o.trainer)) throw new Error(`--trainer must be HOST:PORT of an owrl.v1.Trainer, not ${JSON.stringify(o.trainer)}`);
  if (o.policy !== 'openai') {
    if (o.baseUrl || o.model) throw new Error('--base-url and --model go with --policy openai');
    return;
  }
  if (!/^https?:\/\/[^/]/.test(o.baseUrl)) throw new Error(`--policy openai needs --base-url URL, the OpenAI-compatible API base (e.g. http://vllm:8000/v1); got ${JSON.stringify(o.baseUrl)}`);
  if (o.model === '') throw new Error('--policy openai needs --model NAME, the model the endpoint serves (e.g. Qwen/Qwen3-VL-4B-Instruct)');
  if (o.trainer === '') throw new Error('--policy openai needs --trainer HOST:PORT: the built-in trainer trains only the pointer policy; give a trainer that takes token traces (docs/trainer.md)');
  if (o.warmup) throw new Error('--warmup clones the scripted solvers into the pointer policy; it does not go with --policy openai');
}
