// The language-model loop across processes on a real model, for the torch-loop test and bench:
// a real nats-server, the bundled sites, the learner with OWRL_TRAINER pointing at owrl's
// reference PyTorch trainer (`python3 -m owrl_torch.serve`, gRPC over a real socket), the judge,
// and an actor with the `openai` backend against the Python engine double
// (`python3 -m owrl_torch.engine_double`, vLLM's API) serving the same tiny chat model the trainer
// trains (`python3 -m owrl_torch.tiny build`). The trainer answers each update with a LoRA adapter
// folder; the actor has the engine load it (POST /v1/load_lora_adapter, once per version) before
// its requests name it. The tasks are llm-loop's one-step word tasks ("Answer with the single word
// W and nothing else."), verified by answer match: the tiny model answers in the right format
// with a word that is often wrong, so groups carry mixed rewards and RL has something to learn.
//
// What an update did is read from the trainer's state folder (`versions/v<N>/trainer_state/result.pb`, the
// TrainResult it answered): `off_policy` carries the engine/trainer log-prob gap over the tokens
// sampled at the update's base version and the positive-advantage log-prob gain. The checks
// below (logprobParity, learningCheck, versionCheck) are the loop's pass/fail rules, shared by the
// test and the bench.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { decode, RunPhase, TrainResultSchema, type RunState, type ScoredTrajectory, type TrainResult } from '@owrl/proto';
import { findPython, startPythonModule, TORCH_TRAINER_DIR, torchUnavailable, type PythonProcess } from './python-process.js';
import { readRunScored } from './run-scored.js';
import { startLoopServices, writeWordTasks } from './word-tasks.js';
import { startSystem, type OwrlSystem } from './system.js';

/** The name the engine double serves the tiny model under and the trainer states as its base model. */
export const TORCH_LOOP_BASE_MODEL = 'owrl/tiny-chat';

export type EngineLogprobsMode = 'raw_logprobs' | 'processed_logprobs';

export interface TorchLoopOptions {
  /** Rounds (default 3). */
  rounds?: number;
  /** Rollouts per group (default 5). */
  groupSize?: number;
  /**
   * Kept groups per update (default 1: each update trains one task's group, whose rewarded
   * completions all give the task's word; the tiny model barely tells the tasks apart, so groups
   * of several tasks in one update pull the same words up and down).
   */
  groupsPerRound?: number;
  /** Groups the learner may dispatch per round to keep groupsPerRound (default 4 × groupsPerRound). */
  maxGroupsPerRound?: number;
  /** Browser slots of the one actor (default 5). */
  slots?: number;
  /** Tasks in the pool (one word each, at most 12). */
  tasks?: number;
  /** The trainer's learning rate (`--lr`); the learner sends 0, meaning the trainer's. Default 2e-3. */
  lr?: number;
  /** What the engine double reports (`--logprobs-mode`; default processed_logprobs). */
  engineLogprobsMode?: EngineLogprobsMode;
  /** What the actors are told the engine reports (OWRL_POLICY_LOGPROBS_MODE; default processed). */
  policyLogprobsMode?: 'raw' | 'temperature' | 'processed';
  /** The policy's sampler (OWRL_POLICY_TEMPERATURE/_TOP_P/_TOP_K; default temperature 0.7 without top-p or top-k). */
  temperature?: number;
  topP?: number;
  topK?: number;
  /** Completion budget per request (default 48: a right-format answer is about 20 tokens). */
  maxTokens?: number;
  /** The engine double's chat template (default the model's). */
  template?: 'qwen' | 'alt';
  /** Extra arguments of the trainer and the engine double. */
  trainerArgs?: string[];
  engineArgs?: string[];
  /** The tiny model's seed (default 0). */
  modelSeed?: number;
  /** Extra environment of every owrl service. */
  env?: Record<string, string>;
  keepLogs?: boolean;
}

/** Adapter loads and requests as the engine double counts them (`GET /owrl/stats`). */
export interface EngineDoubleStats {
  loads: Record<string, number>;
  unloads: Record<string, number>;
  load_calls: Array<{ name: string; path: string; status: number; t: number }>;
  requests: Record<string, number>;
  request_models: string[];
  refused: number;
  completion_tokens: number;
  compute_ms: number;
  adapters: Record<string, string>;
  logprobs_mode: string;
}

export interface TorchLoop extends AsyncDisposable {
  sys: OwrlSystem;
  engine: PythonProcess;
  trainer: PythonProcess;
  /** The engine double's API base (http://127.0.0.1:N/v1) and origin. */
  engineUrl: string;
  engineOrigin: string;
  trainerAddress: string;
  /** The trainer's state folder. */
  stateDir: string;
  modelDir: string;
  baseModel: string;
  /** Waits for the run to finish; the final run state. */
  finished(timeoutMs?: number): Promise<RunState>;
  /** The TrainResult of every version the trainer stored, by ascending version. */
  results(): TrainResult[];
  engineStats(): Promise<EngineDoubleStats>;
  /** Every scored trajectory of the run on OWRL_SCORED, in stream order. */
  collectScored(): Promise<ScoredTrajectory[]>;
  dispose(): Promise<void>;
}


/**
 * The tiny model's folder for `seed`: `python3 -m owrl_torch.tiny cached`, which builds it once
 * per seed and version of the model code into a cache shared with the pytest suite
 * ($OWRL_TINY_CACHE, else the temporary folder) and prints its path.
 * @throws Error with the build's output when it fails.
 */
export function buildTinyModel(seed = 0): string {
  const python = findPython();
  if (python === null) throw new Error(torchUnavailable());
  const r = spawnSync(python, ['-m', 'owrl_torch.tiny', 'cached', '--seed', String(seed)], {
    env: { ...process.env, PYTHONPATH: [TORCH_TRAINER_DIR, process.env['PYTHONPATH'] ?? ''].filter((p) => p !== '').join(path.delimiter) },
    encoding: 'utf8',
    timeout: 1_200_000,
  });
  const dir = (r.stdout ?? '').trim().split('\n').pop() ?? '';
  if (r.status !== 0 || !fs.existsSync(path.join(dir, 'config.json'))) {
    throw new Error(`building the tiny model failed (exit ${r.status}): ${`${r.stdout}\n${r.stderr}`.trim().slice(-3000)}`);
  }
  return dir;
}

/** The TrainResults stored under a trainer state folder (`versions/v<N>/trainer_state/result.pb`), by ascending version. */
export function readTrainResults(stateDir: string): TrainResult[] {
  const root = path.join(stateDir, 'versions');
  if (!fs.existsSync(root)) return [];
  const resultFile = (v: string) => [path.join(root, v, 'trainer_state', 'result.pb'), path.join(root, v, 'result.pb')].find((f) => fs.existsSync(f));
  return fs
    .readdirSync(root)
    .map((d) => /^v(\d+)$/.exec(d))
    .filter((m): m is RegExpExecArray => m !== null && Number(m[1]) > 0 && resultFile(m[0]) !== undefined)
    .sort((a, b) => Number(a[1]) - Number(b[1]))
    .map((m) => decode(TrainResultSchema, fs.readFileSync(resultFile(m[0]) ?? '')));
}

export interface ParityReport {
  ok: boolean;
  /** Tokens compared over all updates. */
  tokens: number;
  maxAbs: number;
  /** Mean over all compared tokens. */
  meanAbs: number;
  perUpdate: Array<{ version: number; tokens: number; maxAbs: number; meanAbs: number }>;
  /** Why it failed (undefined when ok). */
  problem?: string;
}

/**
 * Engine/trainer log-prob parity: for every trained token sampled at an update's base version,
 * |behaviour log-prob − the trainer's at that version| ≤ `tol` (the trainer reports max and mean
 * per update in TrainResult.off_policy).
 */
export function logprobParity(results: readonly TrainResult[], tol = 1e-4): ParityReport {
  const perUpdate = results.map((r) => ({
    version: Number(r.version),
    tokens: Number(r.offPolicy?.parityTokens ?? 0n),
    maxAbs: r.offPolicy?.logprobGapMaxAbs ?? NaN,
    meanAbs: r.offPolicy?.logprobGapMeanAbs ?? NaN,
  }));
  const tokens = perUpdate.reduce((n, u) => n + u.tokens, 0);
  const compared = perUpdate.filter((u) => u.tokens > 0);
  const maxAbs = compared.length > 0 ? Math.max(...compared.map((u) => u.maxAbs)) : NaN;
  const meanAbs = tokens > 0 ? compared.reduce((s, u) => s + u.meanAbs * u.tokens, 0) / tokens : NaN;
  let problem: string | undefined;
  if (results.length === 0) problem = 'no update was trained';
  else if (results.some((r) => r.offPolicy === undefined)) problem = `updates without off_policy: ${results.filter((r) => r.offPolicy === undefined).map((r) => r.version).join(', ')}`;
  else if (tokens === 0) problem = 'no trained token was sampled at its update’s base version';
  else if (!(maxAbs <= tol)) problem = `the largest |engine − trainer| log-prob gap is ${maxAbs} > ${tol} (mean ${meanAbs} over ${tokens} tokens)`;
  return { ok: problem === undefined, tokens, maxAbs, meanAbs, perUpdate, ...(problem !== undefined ? { problem } : {}) };
}

export interface LearningReport {
  ok: boolean;
  /** positive_logprob_gain of each update, by version. */
  gains: number[];
  /** Their mean over the updates: what the check compares. */
  meanGain: number;
  problem?: string;
}

/**
 * Learning: across the updates, the positive-advantage completions became more likely — the mean
 * of TrainResult.off_policy.positive_logprob_gain over the updates is above `minGain`. One update
 * can lower them a little (a completion's later tokens share weights with the penalised ones);
 * a learning rate of 0 gives exactly 0 and fails.
 */
export function learningCheck(results: readonly TrainResult[], minGain = 1e-4): LearningReport {
  const gains = results.map((r) => r.offPolicy?.positiveLogprobGain ?? NaN);
  const meanGain = gains.length > 0 ? gains.reduce((a, b) => a + b, 0) / gains.length : NaN;
  let problem: string | undefined;
  if (results.length === 0) problem = 'no update was trained';
  else if (!(meanGain > minGain)) problem = `the mean positive_logprob_gain over the updates is ${meanGain} (per update ${JSON.stringify(gains)}), not above ${minGain}`;
  return { ok: problem === undefined, gains, meanGain, ...(problem !== undefined ? { problem } : {}) };
}

export interface VersionReport {
  ok: boolean;
  /** Successful adapter loads per adapter name. */
  loads: Record<string, number>;
  /** Versions the requests named, in arrival order (0 = the base model). */
  requestVersions: number[];
  problem?: string;
}

/**
 * One adapter load per version, versions never backwards: the engine loaded the adapter of every
 * version the trainer answered (its artifact's serve_name, else owrl-v<N>) once, in version
 * order, every load accepted, and the versions the requests named never went down.
 */
export function versionCheck(stats: EngineDoubleStats, results: readonly TrainResult[], baseModel = TORCH_LOOP_BASE_MODEL): VersionReport {
  const names = results.map((r) => r.artifact?.serveName || `owrl-v${r.version}`);
  const versionOf = new Map<string, number>([[baseModel, 0], ...results.map((r, i): [string, number] => [names[i] ?? '', Number(r.version)])]);
  const calls = stats.load_calls.map((c) => `${c.name}:${c.status}`);
  const requestVersions = stats.request_models.map((m) => versionOf.get(m) ?? -1);
  const loaded = Object.keys(stats.loads).sort((a, b) => (versionOf.get(a) ?? -1) - (versionOf.get(b) ?? -1));
  let problem: string | undefined;
  if (results.some((r, i) => Number(r.version) !== i + 1)) problem = `the trainer's versions are ${results.map((r) => r.version).join(',')}, not 1..${results.length}`;
  else if (JSON.stringify(loaded) !== JSON.stringify(names)) problem = `adapters loaded ${JSON.stringify(loaded)}, expected ${JSON.stringify(names)}`;
  else if (names.some((n) => stats.loads[n] !== 1)) problem = `loads per adapter ${JSON.stringify(stats.loads)}: expected one each`;
  else if (JSON.stringify(calls) !== JSON.stringify(names.map((n) => `${n}:200`))) problem = `load calls ${JSON.stringify(calls)}: expected one accepted call per version, in order`;
  else if (requestVersions.some((v) => v < 0)) problem = `requests named models that are no version: ${JSON.stringify([...new Set(stats.request_models.filter((m) => !versionOf.has(m)))])}`;
  else if (requestVersions.some((v, i) => i > 0 && v < (requestVersions[i - 1] ?? 0))) problem = `the versions requests named went backwards: ${requestVersions.join(',')}`;
  return { ok: problem === undefined, loads: stats.loads, requestVersions, ...(problem !== undefined ? { problem } : {}) };
}

/** Starts the loop; the run is under way when this resolves. */
export async function startTorchLoop(opts: TorchLoopOptions = {}): Promise<TorchLoop> {
  const modelDir = buildTinyModel(opts.modelSeed ?? 0);
  const sysDir = fs.mkdtempSync(path.join(os.tmpdir(), 'owrl-torch-loop-'));
  const stateDir = path.join(sysDir, 'trainer-state');
  const cleanup: Array<() => Promise<void>> = [];
  let undone = false;
  const undo = async () => {
    if (undone) return;
    undone = true;
    for (const f of cleanup.reverse()) await f().catch(() => {});
    if (!opts.keepLogs) fs.rmSync(sysDir, { recursive: true, force: true });
  };
  try {
    const engine = await startPythonModule({
      module: 'owrl_torch.engine_double',
      name: 'engine-double',
      args: [
        '--model', modelDir,
        '--port', '0',
        '--served-model-name', TORCH_LOOP_BASE_MODEL,
        '--logprobs-mode', opts.engineLogprobsMode ?? 'processed_logprobs',
        '--enable-lora', '--max-lora-rank', '64',
        '--enable-auto-tool-choice', '--tool-call-parser', 'hermes',
        '--threads', '1',
        ...(opts.template ? ['--template', opts.template] : []),
        ...(opts.engineArgs ?? []),
      ],
      ready: /listening on ([\d.]+):(\d+)/,
      logFile: path.join(sysDir, 'logs', 'engine-double.log'),
    });
    cleanup.push(() => engine.stop());
    const engineOrigin = `http://${engine.ready[1]}:${engine.ready[2]}`;
    const trainer = await startPythonModule({
      module: 'owrl_torch.serve',
      name: 'torch-trainer',
      args: [
        '--model', modelDir,
        '--state-dir', stateDir,
        '--host', '127.0.0.1',
        '--port', '0',
        '--served-name', TORCH_LOOP_BASE_MODEL,
        '--device', 'cpu',
        '--lr', String(opts.lr ?? 2e-3),
        ...(opts.trainerArgs ?? []),
      ],
      env: { OMP_NUM_THREADS: '1' },
      ready: /owrl-torch listening on ([\w.:[\]-]+):(\d+)/,
      logFile: path.join(sysDir, 'logs', 'torch-trainer.log'),
    });
    cleanup.push(() => trainer.stop());
    const trainerAddress = `127.0.0.1:${trainer.ready[2]}`;

    const tasksFile = path.join(sysDir, 'tasks.jsonl');
    const rounds = opts.rounds ?? 3;
    const groupsPerRound = opts.groupsPerRound ?? 1;
    const sys = await startSystem({
      actors: 1,
      slots: opts.slots ?? 5,
      logDir: path.join(sysDir, 'logs'),
      keepLogs: opts.keepLogs ?? false,
      autostart: { learner: false, judge: false, actors: false },
      ...(opts.env ? { env: opts.env } : {}),
      learnerEnv: {
        OWRL_TASKS_FILE: tasksFile,
        OWRL_ROUNDS: String(rounds),
        OWRL_GROUP_SIZE: String(opts.groupSize ?? 5),
        OWRL_GROUPS_PER_ROUND: String(groupsPerRound),
        OWRL_MAX_GROUPS_PER_ROUND: String(opts.maxGroupsPerRound ?? groupsPerRound * 4),
        OWRL_CURRICULUM: `${rounds}:3`,
        OWRL_ROUND_TIMEOUT_S: '300',
        // the OpenWebRL recipe's update: two full-batch epochs
        OWRL_PPO_EPOCHS: '2',
        OWRL_MINIBATCHES: '1',
        OWRL_TRAINER: trainerAddress,
      },
      actorEnv: {
        OWRL_POLICY: 'openai',
        OWRL_POLICY_BASE_URL: `${engineOrigin}/v1`,
        OWRL_POLICY_MODEL: TORCH_LOOP_BASE_MODEL,
        OWRL_POLICY_ENGINE: 'vllm',
        OWRL_POLICY_RETRIES: '1',
        OWRL_POLICY_TIMEOUT_MS: '120000',
        OWRL_POLICY_MAX_TOKENS: String(opts.maxTokens ?? 48),
        OWRL_POLICY_TEMPERATURE: String(opts.temperature ?? 0.7),
        OWRL_POLICY_TOP_P: String(opts.topP ?? 1),
        OWRL_POLICY_TOP_K: String(opts.topK ?? -1),
        OWRL_POLICY_LOGPROBS_MODE: opts.policyLogprobsMode ?? 'processed',
        OWRL_POLICY_MAX_ELEMENTS: '8',
      },
    });
    cleanup.push(() => sys.dispose());
    await writeWordTasks(sys, tasksFile, opts.tasks ?? 6);
    startLoopServices(sys);

    const loop: TorchLoop = {
      sys,
      engine,
      trainer,
      engineUrl: `${engineOrigin}/v1`,
      engineOrigin,
      trainerAddress,
      stateDir,
      modelDir,
      baseModel: TORCH_LOOP_BASE_MODEL,
      finished: (timeoutMs = 600_000) => sys.waitForPhase(RunPhase.FINISHED, { timeoutMs, abort: () => (trainer.running && engine.running ? sys.failure() : new Error(`${trainer.running ? 'the engine double' : 'the trainer'} exited:\n${(trainer.running ? engine : trainer).tail()}`)) }),
      results: () => readTrainResults(stateDir),
      engineStats: async () => {
        const r = await fetch(`${engineOrigin}/owrl/stats`, { signal: AbortSignal.timeout(10_000) });
        if (!r.ok) throw new Error(`engine double /owrl/stats answered ${r.status}`);
        return (await r.json()) as EngineDoubleStats;
      },
      collectScored: () => readRunScored(sys),
      dispose: undo,
      [Symbol.asyncDispose]: () => loop.dispose(),
    };
    return loop;
  } catch (e) {
    await undo();
    throw e;
  }
}
