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
