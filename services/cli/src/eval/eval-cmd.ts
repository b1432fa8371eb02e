// `owrl eval`: flags → EvalOptions (every bad value a UsageError naming the flag), then runEval.
import { parseArgs } from 'node:util';
import { UsageError } from '../usage.js';
import { runEval, type EvalOptions } from './eval-run.js';

export const EVAL_HELP = `usage: owrl eval --tasks FILE [--policy FILE.onnx|uniform|openai] [--k N] [--out DIR] [--json FILE]
                 [--max-steps N] [--temperature T] [--actors N] [--slots N] [--max-attempts N]
                 [--rollout-timeout S] [--timeout S]

Runs a policy over a task file without training, through the actors and the judge (a local
JetStream server unless NATS_URL is set; the bundled sites when the tasks start at a local origin
that nothing serves), and reports success by suite, family and difficulty (pass@1; pass@k with
--k N: N samples per task, unbiased estimator), termination classes and exclusions by cause.

  --policy        an ONNX pointer artifact (e.g. runs/<run>/learner/.../v12.onnx or warmup.onnx),
                  'uniform' (default: the untrained built-in policy), or 'openai' (the model behind
                  OWRL_POLICY_BASE_URL / OWRL_POLICY_MODEL and the other OWRL_POLICY_* settings)
  --k             samples per task (default 1)
  --out           the eval's folder (default runs/eval-<hash of tasks, policy, k, steps, temperature>):
                  results.jsonl, report.md/html/json; the same command again resumes an interrupted
                  eval without re-running settled samples
  --max-steps     step budget per rollout (default 15)
  --temperature   sampling temperature of the policy (default 1)
  --max-attempts  attempts per sample when infrastructure fails; then it is an exclusion (default 3)
  --rollout-timeout  seconds before a rollout with no result is re-dispatched (default 900)
  --timeout       seconds for the whole invocation (default 7200)
`;

function int(flag: string, v: string | undefined, def: number, min = 1): number {
  if (v === undefined) return def;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min) throw new UsageError(`--${flag} must be an integer >= ${min}, got ${JSON.stringify(v)}`);
  return n;
}

export function parseEvalArgs(args: string[]): EvalOptions | null {
  const { values } = parseArgs({
    args,
    options: {
      tasks: { type: 'string' },
      policy: { type: 'string' },
      k: { type: 'string' },
      out: { type: 'string' },
      json: { type: 'string' },
      'max-steps': { type: 'string' },
      temperature: { type: 'string' },
      actors: { type: 'string' },
      slots: { type: 'string' },
      'max-attempts': { type: 'string' },
      'rollout-timeout': { type: 'string' },
      timeout: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return null;
  if (values.tasks === undefined || values.tasks === '') throw new UsageError(`--tasks FILE is required\n\n${EVAL_HELP}`);
  const temperature = values.temperature === undefined ? 1 : Number(values.temperature);
  if (!Number.isFinite(temperature) || temperature <= 0) throw new UsageError(`--temperature must be a number > 0, got ${JSON.stringify(values.temperature)}`);
  return {
    tasksFile: values.tasks,
    policy: values.policy,
    k: int('k', values.k, 1),
    outDir: values.out,
    jsonOut: values.json ?? '',
    maxSteps: int('max-steps', values['max-steps'], 15),
    temperature,
    actors: int('actors', values.actors, 1),
    slots: int('slots', values.slots, 2),
    maxAttempts: int('max-attempts', values['max-attempts'], 3),
    rolloutTimeoutS: int('rollout-timeout', values['rollout-timeout'], 900),
    timeoutS: int('timeout', values.timeout, 7200),
  };
}

export async function runEvalCommand(args: string[]): Promise<number> {
  const o = parseEvalArgs(args);
  if (!o) {
    process.stdout.write(EVAL_HELP);
    return 0;
  }
  await runEval(o, (line) => process.stdout.write(line + '\n'));
  return 0;
}
