// owrl command line: train, demo, status, watch, pause/resume, groups, trajectory, tasks, blacklist, judge, sft, eval.
// Each command's module is loaded when it runs, so a command (or a usage error) does not pay for
// the others' dependencies (Playwright, onnxruntime, gRPC).
import { parseArgs } from 'node:util';
import fs from 'node:fs';
import path from 'node:path';
import { isTrainRefused } from './train/train-refused.js';
import { isUsageError, UsageError } from './usage.js';

const HELP = `owrl — online RL for web agents

usage:
  owrl train RUN.yaml [--check] [--resume] [--skip-preflight[=nats,tasks,policy,trainer,judge]]
            [--nats URL] [--timeout S] [--json FILE] [key flags as for demo]
      Run a training job from one run file (docs/run-file.md, examples/): starts what is missing
      (nats-server unless --nats or nats.url names one, the bundled sites, learner, judge, actors,
      console), checks every piece before round 0 (the preflight, one line per check), prints
      progress per round and ends with a report in <data_dir>/<run_id>/. A bad file exits 2 with
      FILE:LINE:COL: key: message and starts nothing. --check: validate and run the preflight only
      (exit 0 or 2). --resume: take the run up from its data dir (a change it cannot absorb, e.g.
      recipe.group_size, is refused naming the key). Environment variables override the file.
  owrl demo [--rounds N] [--actors N] [--slots N] [--groups N] [--group-size N]
            [--curriculum rounds:steps,...] [--tasks N] [--difficulties 1,2,3] [--suites a,b]
            [--run-id ID] [--out DIR] [--json FILE] [--timeout S]
            [--warmup | --no-warmup] [--warmup-tasks N] [--warmup-epochs N] [--mode sync|async]
            [--policy pointer|openai] [--base-url URL] [--model NAME] [--engine vllm|sglang|openai]
            [--trainer HOST:PORT] [--check] [--skip-preflight]
      owrl train on examples/demo.yaml: trains the built-in policy on the bundled sites (shop,
      travel, wiki, mail), 2 actors × 3 browser slots, with the flags setting keys of the file
      (--rounds: recipe.rounds, 20 by default, 40 with --no-warmup, whose rounds are quicker;
      --groups N: N groups a round, dynamic sampling up to 1.5 N; --timeout: 1800 s, or 90 s a
      round for longer runs; --out: state.data_dir, runs/).
      With the pointer policy it first clones the scripted solvers by default (--no-warmup: off;
      N demonstration tasks per suite, behaviour cloning), reports its held-out success, and
      starts RL from that policy.
      --policy openai runs a model behind an OpenAI-compatible endpoint instead (--base-url, e.g.
      http://vllm:8000/v1, --model, the served name; OWRL_POLICY_API_KEY from the environment),
      trained by the owrl.v1.Trainer at --trainer (needed with openai; docs/trainer.md); the
      actors make the engine load each new version (vLLM/SGLang LoRA adapters). --mode async keeps
      every browser slot busy and updates as soon as enough groups are in.
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
    case 'train':
    case 'demo': {
      const [{ parseTrainArgs }, { exampleFile }] = await Promise.all([import('./train/train-args.js'), import('./stack.js')]);
      const args = parseTrainArgs(rest, cmd === 'demo' ? { demo: { file: exampleFile('demo.yaml'), env: process.env } } : {});
      const { runTrain } = await import('./train/train.js');
      await runTrain(args, (line) => process.stdout.write(line + '\n'));
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
    const code = isUsageError(e) ? undefined : (e as { code?: unknown }).code;
    // Problems located in a file (`FILE:LINE:COL: key: message`) stand at the start of their lines.
    const located = isTrainRefused(e) && e.located;
    process.stderr.write(`${located ? '' : 'owrl: '}${typeof code === 'string' && /^[A-Z][A-Z0-9_]+$/.test(code) ? `${code}: ` : ''}${(e as Error).message}\n`);
    process.exit(isUsageError(e) ? 2 : 1);
  },
);
