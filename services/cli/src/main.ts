// owrl command line: demo, status, watch, pause/resume, groups, trajectory, tasks, blacklist, judge, sft, eval.
// Each command's module is loaded when it runs, so a command (or a usage error) does not pay for
// the others' dependencies (Playwright, onnxruntime, gRPC).
import { parseArgs } from 'node:util';
import fs from 'node:fs';
import path from 'node:path';
import { checkDemoPolicy, defaultDemoRounds, defaultDemoTimeoutS, type DemoOptions } from './demo/demo-options.js';
import { UsageError } from './usage.js';

/** The demo trains on a mix of the bundled sites. */
const DEMO_SUITES = 'shop,travel,wiki,mail';
/**
 * Whether the demo warms the policy up on the scripted solvers before RL: under the same RL budget
 * the warmed-up policy ends far ahead of the uniform one (`npm run bench -- warmup`,
 * docs/benchmarks.md), so the demo warms up unless --no-warmup.
 */
const DEMO_WARMUP = true;

const HELP = `owrl — online RL for web agents

usage:
  owrl demo [--rounds N] [--actors N] [--slots N] [--groups N] [--group-size N]
            [--curriculum rounds:steps,...] [--tasks N] [--difficulties 1,2,3] [--suites a,b]
            [--run-id ID] [--out DIR] [--json FILE] [--timeout S]
            [--warmup | --no-warmup] [--warmup-tasks N] [--warmup-epochs N] [--mode sync|async]
            [--policy pointer|openai] [--base-url URL] [--model NAME] [--engine vllm|sglang|openai]
            [--trainer HOST:PORT]
      Train the built-in policy on the bundled sites: starts nats-server (unless NATS_URL is set),
      sites, learner, judge and actors as separate processes, and prints progress per round
      (--rounds: 20 by default, 28 with --no-warmup, whose rounds are quicker; --timeout: 1800 s,
      or 90 s a round for longer runs).
      With the pointer policy it first clones the scripted solvers by default (--no-warmup: off;
      N demonstration tasks per suite, behaviour cloning), reports its held-out success, and
      starts RL from that policy.
      --policy openai runs a model behind an OpenAI-compatible endpoint instead (--base-url, e.g.
      http://vllm:8000/v1, --model, the served name; OWRL_POLICY_API_KEY from the environment),
      trained by the owrl.v1.Trainer at --trainer (needed with openai; docs/trainer.md); the
      actors make the engine load each new version (vLLM/SGLang LoRA adapters). --mode async keeps
      every browser slot busy and updates as soon as enough groups are in (OWRL_MODE).
  owrl status [--learner HOST:PORT] [--json]
      Print the run state of a learner over gRPC (default: the latest demo run, else 127.0.0.1:50051).
  owrl watch [--learner HOST:PORT] [--json] [--since VERSION] [--count N]
      Follow the run live (WatchRun): the state after every change until the run ends; --json
      prints one event per line. A dropped stream resumes from the last version seen.
  owrl pause [--reason TEXT] | owrl resume   [--learner HOST:PORT] [--token T] [--json]
      Stop / restart dispatching new rollouts (token: --token or OWRL_CONTROL_TOKEN).
  owrl groups ROUND [--learner HOST:PORT] [--json]
      The groups of a round (0-based): task, fate, rewards, advantages, trajectory ids.
  owrl trajectory ID [--learner HOST:PORT] [--json]
      One scored trajectory step by step (--json: the whole message as proto3 JSON).
  owrl tasks validate FILE... | sample --suite NAME --n N [...] | suites | import --format F FILE
      Check JSONL task files, print tasks of a bundled suite as JSONL, list the suites, import
      WebVoyager / Online-Mind2Web task files (owrl tasks help).
  owrl blacklist list [--json] | add HOST --reason R [--ttl 30m] | remove HOST   [--nats URL]
      Show or edit the hosts the learner and actors skip (KV owrl_blacklist; owrl blacklist help).
  owrl judge eval --labels FILE --model DIR [...] | export [--run ID] [--out FILE] [...]
      Measure a judge model on labelled trajectories; export judged trajectories (owrl judge help).
  owrl sft export [--from solvers|runs] [--out FILE] [--images data-url|files|none] [filters...]
      Write successful trajectories (scripted solvers of the bundled sites, or scored runs) as
      chat-format JSONL in OpenWebRL's agent format for an external SFT trainer (owrl sft help).
  owrl eval --tasks FILE [--policy FILE.onnx|uniform|openai] [--k N] [--out DIR] [--json FILE] [...]
      Run a policy over a task file without training (actors and judge, no learner): pass@1 and
      pass@k by suite, family and difficulty, terminations, exclusions; resumes when rerun (owrl eval --help).
  owrl help
`;

function int(name: string, v: string | undefined, def: number, min = 1): number {
  if (v === undefined) return def;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min) throw new UsageError(`--${name} must be an integer >= ${min}, got ${JSON.stringify(v)}`);
  return n;
}

function latestDemoAddress(outDir: string): string | null {
  if (!fs.existsSync(outDir)) return null;
  const runs = fs
    .readdirSync(outDir)
    .map((d) => path.join(outDir, d, 'learner.addr'))
    .filter((f) => fs.existsSync(f))
    .sort((a, b) => fs.statSync(b).mtimeMs - fs.statSync(a).mtimeMs);
  return runs[0] ? fs.readFileSync(runs[0], 'utf8').trim() : null;
}

async function main(argv: string[]): Promise<number> {
  const [cmd, ...rest] = argv;
  switch (cmd) {
    case 'demo': {
      const { values } = parseArgs({
        args: rest,
        options: {
          rounds: { type: 'string' },
          actors: { type: 'string' },
          slots: { type: 'string' },
          groups: { type: 'string' },
          'group-size': { type: 'string' },
          curriculum: { type: 'string' },
          tasks: { type: 'string' },
          difficulties: { type: 'string' },
          suites: { type: 'string' },
          'run-id': { type: 'string' },
          out: { type: 'string' },
          json: { type: 'string' },
          timeout: { type: 'string' },
          warmup: { type: 'boolean' },
          'no-warmup': { type: 'boolean' },
          'warmup-tasks': { type: 'string' },
          'warmup-epochs': { type: 'string' },
          policy: { type: 'string' },
          'base-url': { type: 'string' },
          model: { type: 'string' },
          engine: { type: 'string' },
          trainer: { type: 'string' },
          mode: { type: 'string' },
        },
      });
      if (values.mode !== undefined && values.mode !== 'sync' && values.mode !== 'async') throw new UsageError(`--mode must be sync or async, got ${JSON.stringify(values.mode)}`);
      const policy = values.policy ?? 'pointer';
      if (policy !== 'pointer' && policy !== 'openai') throw new UsageError(`--policy must be pointer or openai, not ${JSON.stringify(policy)}`);
      const engine = values.engine ?? 'vllm';
      if (engine !== 'vllm' && engine !== 'sglang' && engine !== 'openai') throw new UsageError(`--engine must be vllm, sglang or openai, not ${JSON.stringify(engine)}`);
      const warmup = values['no-warmup'] ? false : (values.warmup ?? (policy === 'pointer' && DEMO_WARMUP));
      const rounds = int('rounds', values.rounds ?? process.env['OWRL_DEMO_ROUNDS'], defaultDemoRounds({ warmup, policy }));
      const demo: DemoOptions = {
        rounds,
        actors: int('actors', values.actors, 2),
        slots: int('slots', values.slots, 3),
        groupsPerRound: int('groups', values.groups, 4),
        groupSize: int('group-size', values['group-size'], 5, 2),
        curriculum: values.curriculum ?? `${rounds}:6`,
        taskCount: int('tasks', values.tasks, 60),
        difficulties: values.difficulties ?? '1,2,3',
        suites: values.suites ?? DEMO_SUITES,
        runId: values['run-id'] ?? `demo-${new Date().toISOString().slice(0, 19).replace(/[-:T]/g, '')}`,
        outDir: values.out ?? path.resolve('runs'),
        jsonOut: values.json ?? '',
        timeoutS: int('timeout', values.timeout, defaultDemoTimeoutS(rounds)),
        warmup,
        warmupTasks: int('warmup-tasks', values['warmup-tasks'], 8),
        warmupEpochs: int('warmup-epochs', values['warmup-epochs'], 30),
        policy,
        baseUrl: values['base-url'] ?? '',
        model: values.model ?? '',
        engine,
        trainer: values.trainer ?? '',
        mode: values.mode ?? process.env['OWRL_MODE'] ?? 'sync',
      };
      try {
        checkDemoPolicy(demo);
      } catch (e) {
        throw new UsageError((e as Error).message);
      }
      const { runDemo } = await import('./demo/demo.js');
      await runDemo(demo, (line) => process.stdout.write(line + '\n'));
      return 0;
    }
    case 'status': {
      const { values } = parseArgs({ args: rest, options: { learner: { type: 'string' }, json: { type: 'boolean' } } });
      const addr = values.learner ?? process.env['OWRL_LEARNER'] ?? latestDemoAddress(path.resolve('runs')) ?? '127.0.0.1:50051';
      const [{ LearnerClient }, { formatState }] = await Promise.all([import('@owrl/learner-client'), import('./format.js')]);
      const client = new LearnerClient(addr);
      try {
        const s = await client.getRunState();
        if (values.json) {
          process.stdout.write(JSON.stringify(s, (_k, v: unknown) => (typeof v === 'bigint' ? Number(v) : v), 2) + '\n');
        } else {
          process.stdout.write(formatState(s) + '\n');
        }
      } catch (e) {
        throw new Error(`cannot get the run state from the learner at ${addr}: ${(e as Error).message}`, { cause: e });
      } finally {
        client.close();
      }
      return 0;
    }
    case 'watch':
    case 'pause':
    case 'resume':
    case 'groups':
    case 'trajectory':
      const { runRunCommand } = await import('./run-cmd.js');
      return await runRunCommand(cmd, rest, {
        out: (line) => process.stdout.write(line + '\n'),
        defaultLearner: () => latestDemoAddress(path.resolve('runs')) ?? '127.0.0.1:50051',
        tty: process.stdout.isTTY,
      });
    case 'tasks':
      return await (await import('./tasks-cmd.js')).runTasksCommand(rest);
    case 'blacklist':
      return await (await import('./blacklist-cmd.js')).runBlacklistCommand(rest);
    case 'judge':
      return await (await import('./judge-cmd.js')).runJudgeCommand(rest);
    case 'sft':
      return await (await import('./sft-cmd.js')).runSftCommand(rest);
    case 'eval':
      return await (await import('./eval/eval-cmd.js')).runEvalCommand(rest);
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(HELP);
      return 0;
    default:
      throw new UsageError(`unknown command ${JSON.stringify(cmd)}\n\n${HELP}`);
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e: unknown) => {
    // A coded error (JUDGE_MODEL_DEVICE_UNAVAILABLE, …) says its code, so scripts and people can match it.
    const code = e instanceof UsageError ? undefined : (e as { code?: unknown }).code;
    process.stderr.write(`owrl: ${typeof code === 'string' && /^[A-Z][A-Z0-9_]+$/.test(code) ? `${code}: ` : ''}${(e as Error).message}\n`);
    process.exit(e instanceof UsageError ? 2 : 1);
  },
);
