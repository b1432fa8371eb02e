// The command line of `owrl train RUN.yaml` and `owrl demo` (train on examples/demo.yaml): the
// run's own flags (--check, --resume, --skip-preflight, --nats, --timeout, --json), and flags that
// set keys of the run file (--rounds sets recipe.rounds, …), applied on top of the file and
// checked with it; a bad value is reported under the flag's name.
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { RunFileOverride } from '@owrl/run-file';
import { UsageError } from '../usage.js';
import { TrainRefused } from './train-refused.js';
import { defaultDemoRounds, defaultDemoTimeoutS } from '../demo/demo-options.js';
import { PREFLIGHT_CHECKS, type PreflightCheckName } from '../preflight/preflight-check.js';

export interface TrainArgs {
  /** The run file. */
  file: string;
  overrides: RunFileOverride[];
  /** Validate and run the preflight; start no training. */
  check: boolean;
  resume: boolean;
  /** Preflight checks skipped (all of them for a bare --skip-preflight). */
  skip: PreflightCheckName[];
  /** NATS to join (--nats); undefined: the file's, else NATS_URL, else one started here. */
  nats: string | undefined;
  /** Give up after this long, s (0 = never). */
  timeoutS: number;
  jsonOut: string;
}

/** Flags that set a key of the run file: flag → key path and how its text becomes the value. */
const KEY_FLAGS: Record<string, { path: string[]; kind: 'int' | 'string' | 'list' | 'ints' | 'curriculum' }> = {
  rounds: { path: ['recipe', 'rounds'], kind: 'int' },
  actors: { path: ['fleet', 'actors'], kind: 'int' },
  slots: { path: ['fleet', 'slots'], kind: 'int' },
  'group-size': { path: ['recipe', 'group_size'], kind: 'int' },
  curriculum: { path: ['recipe', 'curriculum'], kind: 'curriculum' },
  tasks: { path: ['tasks', 'count'], kind: 'int' },
  difficulties: { path: ['tasks', 'difficulties'], kind: 'ints' },
  suites: { path: ['tasks', 'suites'], kind: 'list' },
  'run-id': { path: ['state', 'run_id'], kind: 'string' },
  out: { path: ['state', 'data_dir'], kind: 'string' },
  'warmup-tasks': { path: ['policy', 'warmup', 'tasks'], kind: 'int' },
  'warmup-epochs': { path: ['policy', 'warmup', 'epochs'], kind: 'int' },
  policy: { path: ['policy', 'kind'], kind: 'string' },
  'base-url': { path: ['policy', 'base_url'], kind: 'string' },
  model: { path: ['policy', 'model'], kind: 'string' },
  engine: { path: ['policy', 'engine'], kind: 'string' },
  mode: { path: ['recipe', 'mode'], kind: 'string' },
  'log-level': { path: ['log_level'], kind: 'string' },
};

/** A number when the text is one (else the text, which the schema then refuses by name). */
const numeric = (v: string): unknown => (v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : v);

function flagValue(kind: (typeof KEY_FLAGS)[string]['kind'], v: string): unknown {
  const list = v.split(',').map((x) => x.trim()).filter((x) => x !== '');
  switch (kind) {
    case 'int':
      return numeric(v);
    case 'list':
      return list;
    case 'ints':
      return list.map(numeric);
    case 'curriculum':
      return list.map((stage) => {
        const m = /^(\d+)\s*:\s*(\d+)$/.exec(stage);
        if (!m) throw new TrainRefused(`--curriculum: recipe.curriculum: stage ${JSON.stringify(stage)} is not rounds:max_steps (e.g. 20:8,20:15)`, { located: true });
        return { rounds: Number(m[1]), max_steps: Number(m[2]) };
      });
    default:
      return v;
  }
}

const OPTIONS = {
  ...Object.fromEntries(Object.keys(KEY_FLAGS).map((k) => [k, { type: 'string' as const }])),
  groups: { type: 'string' as const },
  trainer: { type: 'string' as const },
  warmup: { type: 'boolean' as const },
  'no-warmup': { type: 'boolean' as const },
  check: { type: 'boolean' as const },
  resume: { type: 'boolean' as const },
  'skip-preflight': { type: 'string' as const },
  nats: { type: 'string' as const },
  timeout: { type: 'string' as const },
  json: { type: 'string' as const },
};

function positiveInt(name: string, v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new UsageError(`--${name} must be an integer >= 0, got ${JSON.stringify(v)}`);
  return n;
}

/**
 * `owrl train` arguments (`demo`: the bundled example file and the demo's defaults: rounds by
 * warm-up, a timeout, the warm-up off for a model endpoint).
 * @throws UsageError (exit 2) for a bad flag.
 */
export function parseTrainArgs(argv: string[], o: { demo?: { file: string; env: NodeJS.ProcessEnv } } = {}): TrainArgs {
  // A bare --skip-preflight skips every check; --skip-preflight=a,b names them.
  const args = argv.map((a) => (a === '--skip-preflight' ? '--skip-preflight=all' : a));
  let parsed: ReturnType<typeof parseArgs<{ args: string[]; options: typeof OPTIONS; allowPositionals: true }>>;
  try {
    parsed = parseArgs({ args, options: OPTIONS, allowPositionals: true });
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  const { values, positionals } = parsed;
  let file: string;
  if (o.demo) {
    if (positionals.length > 0) throw new UsageError(`owrl demo takes no run file (it runs ${o.demo.file}; use owrl train FILE), got ${JSON.stringify(positionals[0])}`);
    file = o.demo.file;
  } else {
    if (positionals.length !== 1) throw new UsageError(positionals.length === 0 ? 'owrl train needs a run file: owrl train RUN.yaml (examples/, docs/run-file.md)' : `owrl train takes one run file, got ${positionals.join(' ')}`);
    file = positionals[0] as string;
  }
  const overrides: RunFileOverride[] = [];
  const set = (p: string[], value: unknown, source: string): void => void overrides.push({ path: p, value, source });
  const v = values as Record<string, string | boolean | undefined>;
  for (const [flag, spec] of Object.entries(KEY_FLAGS)) {
    const raw = v[flag];
    if (typeof raw === 'string') set(spec.path, spec.kind === 'string' && flag === 'out' ? path.resolve(raw) : flagValue(spec.kind, raw), `--${flag}`);
  }
  if (typeof v['groups'] === 'string') {
    // The demo's dynamic-sampling cap follows the groups: half as many again.
    const g = numeric(v['groups']);
    set(['recipe', 'groups_per_round'], g, '--groups');
    if (typeof g === 'number' && Number.isInteger(g) && g >= 1) set(['recipe', 'max_groups_per_round'], Math.ceil(g * 1.5), '--groups');
  }
  if (typeof v['trainer'] === 'string') {
    set(['trainer', 'kind'], 'remote', '--trainer');
    set(['trainer', 'address'], v['trainer'], '--trainer');
  }
  const warmupFlag = v['no-warmup'] === true ? false : (v['warmup'] as boolean | undefined);
  if (warmupFlag !== undefined) set(['policy', 'warmup', 'enabled'], warmupFlag, warmupFlag ? '--warmup' : '--no-warmup');
  if (typeof v['nats'] === 'string' && v['nats'] !== '') set(['nats', 'url'], v['nats'], '--nats');

  let timeoutS = typeof v['timeout'] === 'string' ? positiveInt('timeout', v['timeout']) : 0;
  if (o.demo) {
    const policy = typeof v['policy'] === 'string' ? v['policy'] : 'pointer';
    // The demo warms the pointer policy up unless told not to; a model endpoint has no warm-up.
    const warmup = warmupFlag ?? policy === 'pointer';
    if (warmupFlag === undefined && policy !== 'pointer') set(['policy', 'warmup', 'enabled'], false, '--policy');
    if (typeof v['rounds'] !== 'string') {
      const envRounds = o.demo.env['OWRL_DEMO_ROUNDS'];
      const rounds = envRounds !== undefined && envRounds !== '' ? numeric(envRounds) : defaultDemoRounds({ warmup, policy: policy === 'openai' ? 'openai' : 'pointer' });
      set(['recipe', 'rounds'], rounds, envRounds ? 'OWRL_DEMO_ROUNDS' : '--rounds');
    }
    if (timeoutS === 0) {
      const r = overrides.find((x) => x.path.join('.') === 'recipe.rounds')?.value;
      timeoutS = defaultDemoTimeoutS(typeof r === 'number' ? r : 20);
    }
  }
  const skipRaw = typeof v['skip-preflight'] === 'string' ? v['skip-preflight'] : '';
  const skip: PreflightCheckName[] = [];
  for (const name of skipRaw.split(',').map((x) => x.trim()).filter((x) => x !== '')) {
    if (name === 'all') skip.push(...PREFLIGHT_CHECKS);
    else if ((PREFLIGHT_CHECKS as readonly string[]).includes(name)) skip.push(name as PreflightCheckName);
    else throw new UsageError(`--skip-preflight: no check called ${JSON.stringify(name)}; the checks are ${PREFLIGHT_CHECKS.join(', ')}`);
  }
  return {
    file,
    overrides,
    check: v['check'] === true,
    resume: v['resume'] === true,
    skip: [...new Set(skip)],
    nats: typeof v['nats'] === 'string' && v['nats'] !== '' ? v['nats'] : undefined,
    timeoutS,
    jsonOut: typeof v['json'] === 'string' ? v['json'] : '',
  };
}
