// Rules of a run file that span keys (what goes with what), checked after the schema's own types
// and ranges; each is listed in the reference by its text.
import type { RunFile } from './schema.js';

/** A rule broken at `path` (the key to point at). */
export interface RuleIssue {
  path: (string | number)[];
  message: string;
}

export interface RunFileRule {
  /** The rule as the reference states it. */
  text: string;
  check(run: RunFile): RuleIssue[];
}

const OPENAI_ONLY = ['base_url', 'model', 'engine', 'api_key_env', 'top_p', 'top_k', 'min_p', 'max_tokens', 'history', 'screenshots', 'timeout_ms', 'retries', 'load_weights'] as const;
const JUDGE_KEYS = { onnx: ['model_dir', 'device'], api: ['url', 'model', 'api_key_env', 'image'] } as const;

function present(o: object | undefined, key: string): boolean {
  return o !== undefined && (o as Record<string, unknown>)[key] !== undefined;
}

export const RULES: readonly RunFileRule[] = [
  {
    text: 'tasks names at least one source: suites or files.',
    check: (r) => (r.tasks.suites === undefined && r.tasks.files === undefined ? [{ path: ['tasks'], message: 'names no tasks: give suites (bundled sites) or files (JSONL task files)' }] : []),
  },
  {
    text: 'tasks.sites_url, count, seed and difficulties go with suites.',
    check: (r) =>
      r.tasks.suites !== undefined
        ? []
        : (['sites_url', 'count', 'seed', 'difficulties'] as const).filter((k) => present(r.tasks, k)).map((k) => ({ path: ['tasks', k], message: 'goes with tasks.suites (the bundled sites), which is not set' })),
  },
  {
    text: 'policy.kind openai needs base_url and model; its other keys (engine, sampling, history, screenshots, …) go with openai only.',
    check: (r) => {
      const p = r.policy ?? {};
      if ((p.kind ?? 'pointer') === 'openai') {
        return (['base_url', 'model'] as const).filter((k) => !present(p, k)).map((k) => ({ path: ['policy'], message: `kind openai needs ${k} (${k === 'base_url' ? 'the API base, e.g. http://vllm:8000/v1' : 'the model the endpoint serves'})` }));
      }
      return OPENAI_ONLY.filter((k) => present(p, k)).map((k) => ({ path: ['policy', k], message: 'goes with policy.kind openai; the policy is pointer' }));
    },
  },
  {
    text: 'policy.kind openai is trained by a remote trainer (the built-in one trains only the pointer policy).',
    check: (r) =>
      (r.policy?.kind ?? 'pointer') === 'openai' && (r.trainer?.kind ?? 'inprocess') !== 'remote'
        ? [{ path: r.trainer?.kind !== undefined ? ['trainer', 'kind'] : ['policy', 'kind'], message: 'policy.kind openai needs trainer.kind remote with an address: the in-process trainer trains only the pointer policy (docs/trainer.md)' }]
        : [],
  },
  {
    text: 'policy.load_weights needs engine vllm or sglang (a hosted API loads no versions).',
    check: (r) => (r.policy?.load_weights === true && r.policy.engine === 'openai' ? [{ path: ['policy', 'load_weights'], message: 'engine openai has no weight-loading API (vllm, sglang)' }] : []),
  },
  {
    text: 'policy.warmup runs on the pointer policy and the bundled suites.',
    check: (r) => {
      if (r.policy?.warmup?.enabled !== true) return [];
      if ((r.policy.kind ?? 'pointer') !== 'pointer') return [{ path: ['policy', 'warmup', 'enabled'], message: 'the warm-up clones the scripted solvers into the pointer policy; the policy is openai' }];
      if (r.tasks.suites === undefined) return [{ path: ['policy', 'warmup', 'enabled'], message: 'the warm-up plays the bundled suites\' scripted solvers; tasks.suites is not set' }];
      return [];
    },
  },
  {
    text: 'trainer.kind remote needs address; address and token_env go with remote.',
    check: (r) => {
      const t = r.trainer ?? {};
      const remote = (t.kind ?? 'inprocess') === 'remote';
      if (remote && t.address === undefined) return [{ path: ['trainer'], message: 'kind remote needs address (host:port of an owrl.v1.Trainer)' }];
      if (!remote) return (['address', 'token_env'] as const).filter((k) => present(t, k)).map((k) => ({ path: ['trainer', k], message: 'goes with trainer.kind remote' }));
      return [];
    },
  },
  {
    text: 'judge.kind onnx needs model_dir; api needs url and model; each kind\'s keys go with that kind.',
    check: (r) => {
      const j = r.judge ?? {};
      const kind = j.kind ?? 'verifiers';
      const out: RuleIssue[] = [];
      if (kind === 'onnx' && j.model_dir === undefined) out.push({ path: ['judge'], message: 'kind onnx needs model_dir (the exported model folder)' });
      if (kind === 'api') for (const k of ['url', 'model'] as const) if (j[k] === undefined) out.push({ path: ['judge'], message: `kind api needs ${k}` });
      for (const [k, keys] of Object.entries(JUDGE_KEYS)) {
        if (k === kind) continue;
        for (const key of keys) if (present(j, key)) out.push({ path: ['judge', key], message: `goes with judge.kind ${k}; the kind is ${kind}` });
      }
      if (kind === 'verifiers') for (const key of ['threshold', 'shadow'] as const) if (present(j, key)) out.push({ path: ['judge', key], message: 'goes with a judge model (kind onnx or api)' });
      return out;
    },
  },
  {
    text: 'recipe.max_groups_per_round is at least groups_per_round.',
    check: (r) => {
      const g = r.recipe?.groups_per_round;
      const m = r.recipe?.max_groups_per_round;
      return m !== undefined && m < (g ?? 8) ? [{ path: ['recipe', 'max_groups_per_round'], message: `${m} is below groups_per_round (${g ?? '8, the default'})` }] : [];
    },
  },
  {
    text: 'Each stage of recipe.curriculum but the last gives rounds.',
    check: (r) => {
      const stages = r.recipe?.curriculum ?? [];
      return stages.flatMap((s, i) => (s.rounds === undefined && i < stages.length - 1 ? [{ path: ['recipe', 'curriculum', i], message: 'only the last stage may leave rounds out (it goes on to the end of the run)' }] : []));
    },
  },
  {
    text: 'nats: at most one authentication (user + password_env, token_env, creds_file or nkey_seed_file); user and password_env go together.',
    check: (r) => {
      const n = r.nats ?? {};
      const out: RuleIssue[] = [];
      if ((n.user === undefined) !== (n.password_env === undefined)) out.push({ path: ['nats', n.user === undefined ? 'password_env' : 'user'], message: 'user and password_env go together' });
      const ways = [n.user !== undefined || n.password_env !== undefined, n.token_env !== undefined, n.creds_file !== undefined, n.nkey_seed_file !== undefined].filter(Boolean).length;
      if (ways > 1) out.push({ path: ['nats'], message: 'names more than one authentication: keep one of user/password_env, token_env, creds_file, nkey_seed_file' });
      return out;
    },
  },
];

/** Every rule broken by `run`. */
export function checkRules(run: RunFile): RuleIssue[] {
  return RULES.flatMap((rule) => rule.check(run));
}
