// Learner configuration from the environment (OWRL_* variables), with the recipe's defaults.
import fs from 'node:fs';
import { DEFAULT_DIM, readOnnxWeights } from '@owrl/policy';
import { DEFAULT_UPDATE } from '@owrl/rl';
import { DEFAULT_KEEP_ROUNDS } from './control.js';
import { parseCrashAt, type CrashSpec } from './crash-point.js';
import { DEFAULT_TIMEOUT_POLICY_SHARE, type FailureRules, type TimeoutBlame } from './failure-rules.js';
import { DEFAULTS, envBool, envInt, envList, envNumber, envSecret, envString, ConfigError, type CurriculumStage, type Secret } from '@owrl/core';
import { parseTrainerAddress } from '@owrl/trainer-rpc';

export type LearnerMode = 'sync' | 'async';

export interface LearnerConfig {
  natsUrl: string;
  /**
   * `sync`: dispatch a round, wait for it, update. `async`: dispatch keeps every actor slot busy
   * and an update runs as soon as `groupsPerRound` kept groups are in.
   */
  mode: LearnerMode;
  /** Async: a trajectory produced more than this many policy versions before the update is dropped (counted). */
  maxStaleness: number;
  runId: string;
  rounds: number;
  groupSize: number;
  groupsPerRound: number;
  /** Upper bound on groups dispatched in one round by dynamic sampling (refills after all-0/all-1 drops). */
  maxGroupsPerRound: number;
  curriculum: CurriculumStage[];
  maxAttempts: number;
  /**
   * Who failures are blamed on (failure-rules.ts): OWRL_TIMEOUT_BLAME (timings | site | policy),
   * OWRL_TIMEOUT_POLICY_SHARE (0.5), OWRL_MAX_ATTEMPTS, OWRL_EXHAUSTED_GROUPS (drop).
   */
  failureRules: FailureRules;
  roundTimeoutMs: number;
  temperature: number;
  learningRate: number;
  ppoEpochs: number;
  /** Minibatches per PPO epoch (one optimizer step each). */
  minibatches: number;
  clipLow: number;
  clipHigh: number;
  /** Trust region: most approximate KL from the behaviour policy an update may add over a minibatch (0 = off). */
  trustKl: number;
  /** JSONL task files (OWRL_TASKS_FILE, comma-separated); their tasks join the bundled suites' when OWRL_SITES_URL is set too. */
  tasksFiles: string[];
  sitesUrl: string;
  suites: string[];
  taskSeed: number;
  taskCount: number;
  difficulties: number[];
  /** The difficulty curriculum: levels open from the start, the success rate that opens the next, outcomes per level it looks at. */
  levels: { initial: number; unlockAt: number; window: number };
  grpcHost: string;
  grpcPort: number;
  artifactHost: string;
  artifactPort: number;
  advertiseHost: string;
  dataDir: string;
  /** Policy artifacts kept on disk (latest versions); 0 keeps all. */
  keepArtifacts: number;
  /** Finished rounds whose groups and scored trajectories stay in memory for ListGroups/GetTrajectory. */
  keepRounds: number;
  resume: boolean;
  /**
   * OWRL_HELD_STEPS: where the steps of the results the learner holds wait until read: `disk`
   * (the default: segment files under `<data dir>/<run>/spill`, step-spill.ts), `stream` (read
   * back from OWRL_SCORED by sequence, stream-steps.ts, whose comment says why it is not the
   * default) or `memory`.
   */
  heldSteps: HeldStepsMode;
  controlToken: string;
  metricsPort: number;
  seed: number;
  /** Site failures of one host within the window that blacklist it; 0 turns automatic blacklisting off. */
  blacklistFailures: number;
  blacklistWindowMs: number;
  /** How long an automatic blacklist entry blocks its host. */
  blacklistTtlMs: number;
  /** ack_wait of the run's learner consumer; held scored trajectories get working() well within it. */
  scoredAckWaitMs: number;
  /**
   * max_ack_pending of the run's learner consumer at start (OWRL_SCORED_MAX_ACK_PENDING, 20000):
   * the most scored trajectories it may hold unacked. The learner raises it when the results it
   * may hold (every rollout of its pending and untrained groups) would outgrow it.
   */
  scoredMaxAckPending: number;
  /** On SIGTERM, how long the current round may still run to finish; past it the round is left for the next start, never trained truncated. */
  stopGraceMs: number;
  /** Test hook: SIGKILL the learner at a named point of a round (OWRL_CRASH_AT). */
  crashAt: CrashSpec | null;
  /**
   * ONNX pointer-policy artifact (e.g. the warm-up's) whose weights start the run instead of the
   * uniform policy: the first version actors run. Ignored when resuming from a checkpoint.
   */
  initPolicy: string;
  /**
   * The trainer every update goes to (OWRL_TRAINER): `inprocess` (the built-in pointer trainer in
   * this process, default) or `host:port` of an owrl.v1.Trainer (docs/trainer.md).
   */
  trainer: 'inprocess' | { address: string };
  /** OWRL_TRAINER_TOKEN: sent to a remote trainer as `authorization: Bearer <token>`. */
  trainerToken: Secret;
}

const RUN_ID = /^[A-Za-z0-9_-]{1,64}$/;

function port(name: string, def: number, env: Record<string, string | undefined>): number {
  const p = envInt(name, def, env, 0);
  if (p > 65535) throw new ConfigError(name, `${name}=${p} is not a TCP port (0-65535)`);
  return p;
}

/** Checks an initial-policy file: readable, a pointer-policy artifact of the learner's dimension. */
function checkInitPolicy(file: string): void {
  let bytes: Uint8Array;
  try {
    bytes = fs.readFileSync(file);
  } catch (e) {
    throw new ConfigError('OWRL_INIT_POLICY', `OWRL_INIT_POLICY=${file}: cannot read it (${(e as Error).message})`);
  }
  let dim: number;
  try {
    ({ dim } = readOnnxWeights(bytes));
  } catch (e) {
    throw new ConfigError('OWRL_INIT_POLICY', `OWRL_INIT_POLICY=${file} is not a pointer-policy ONNX artifact: ${(e as Error).message}`);
  }
  if (dim !== DEFAULT_DIM) throw new ConfigError('OWRL_INIT_POLICY', `OWRL_INIT_POLICY=${file} has feature dimension ${dim}; the learner's is ${DEFAULT_DIM}`);
}

function learnerMode(raw: string): LearnerMode {
  if (raw === 'sync' || raw === 'async') return raw;
  throw new ConfigError('OWRL_MODE', `OWRL_MODE=${JSON.stringify(raw)} must be sync or async`);
}

export type HeldStepsMode = 'stream' | 'disk' | 'memory';

function heldStepsMode(env: Record<string, string | undefined>): HeldStepsMode {
  if ((env.OWRL_SPILL_STEPS ?? '') !== '') {
    throw new ConfigError('OWRL_SPILL_STEPS', `OWRL_SPILL_STEPS=${JSON.stringify(env.OWRL_SPILL_STEPS)} is replaced by OWRL_HELD_STEPS: disk (the default, what OWRL_SPILL_STEPS=true did), stream or memory (false)`);
  }
  const raw = envString('OWRL_HELD_STEPS', 'disk', env);
  if (raw === 'stream' || raw === 'disk' || raw === 'memory') return raw;
  throw new ConfigError('OWRL_HELD_STEPS', `OWRL_HELD_STEPS=${JSON.stringify(raw)} must be disk, stream or memory`);
}

/** `inprocess`, or a trainer's `host:port`. */
function parseTrainer(raw: string): LearnerConfig['trainer'] {
  if (raw === 'inprocess') return 'inprocess';
  try {
    return { address: parseTrainerAddress(raw) };
  } catch {
    throw new ConfigError('OWRL_TRAINER', `OWRL_TRAINER=${JSON.stringify(raw)} must be inprocess or the host:port of an owrl.v1.Trainer (e.g. trainer:50070)`);
  }
}

function failureRules(env: Record<string, string | undefined>): FailureRules {
  const blame = envString('OWRL_TIMEOUT_BLAME', 'timings', env);
  if (blame !== 'timings' && blame !== 'site' && blame !== 'policy') {
    throw new ConfigError('OWRL_TIMEOUT_BLAME', `OWRL_TIMEOUT_BLAME=${JSON.stringify(blame)} must be timings (from the episode's policy and browser time), site or policy`);
  }
  const share = envNumber('OWRL_TIMEOUT_POLICY_SHARE', DEFAULT_TIMEOUT_POLICY_SHARE, env, { min: 0 });
  if (!(share > 0 && share <= 1)) throw new ConfigError('OWRL_TIMEOUT_POLICY_SHARE', `OWRL_TIMEOUT_POLICY_SHARE=${share} must be within (0, 1]: the share of an episode's wall time spent in the policy from which its timeout is the policy's`);
  const exhausted = envString('OWRL_EXHAUSTED_GROUPS', 'drop', env);
  if (exhausted !== 'drop') {
    throw new ConfigError(
      'OWRL_EXHAUSTED_GROUPS',
      `OWRL_EXHAUSTED_GROUPS=${JSON.stringify(exhausted)}: the only rule is drop (a group whose sample spent its attempts is dropped whole and counted); training it without that sample would bias its advantages`,
    );
  }
  return { timeoutBlame: blame as TimeoutBlame, timeoutPolicyShare: share, maxAttempts: envInt('OWRL_MAX_ATTEMPTS', DEFAULTS.maxAttempts, env, 1), exhaustedGroups: 'drop' };
}

/** Parses "90:15,50:30" (rounds:max_steps, ...). */
export function parseCurriculum(name: string, raw: string): CurriculumStage[] {
  const stages = raw.split(',').map((part) => {
    const m = /^\s*(\d+)\s*:\s*(\d+)\s*$/.exec(part);
    if (!m) throw new ConfigError(name, `${name}=${JSON.stringify(raw)}: stage ${JSON.stringify(part)} is not rounds:max_steps`);
    const stage = { rounds: Number(m[1]), maxSteps: Number(m[2]) };
    if (stage.rounds < 1 || stage.maxSteps < 1) throw new ConfigError(name, `${name}: stage ${JSON.stringify(part)} needs rounds >= 1 and max_steps >= 1`);
    return stage;
  });
  return stages;
}

export function loadLearnerConfig(env: Record<string, string | undefined> = process.env): LearnerConfig {
  const groupsPerRound = envInt('OWRL_GROUPS_PER_ROUND', 8, env, 1);
  const curriculumRaw = envString('OWRL_CURRICULUM', '', env);
  const tasksFiles = envList('OWRL_TASKS_FILE', [], env);
  const cfg: LearnerConfig = {
    natsUrl: envString('NATS_URL', 'nats://127.0.0.1:4222', env),
    mode: learnerMode(envString('OWRL_MODE', 'sync', env)),
    maxStaleness: envInt('OWRL_MAX_STALENESS', 4, env, 0),
    runId: envString('OWRL_RUN_ID', `run-${new Date().toISOString().slice(0, 19).replace(/[-:T]/g, '')}`, env),
    rounds: envInt('OWRL_ROUNDS', 140, env, 1),
    groupSize: envInt('OWRL_GROUP_SIZE', DEFAULTS.groupSize, env, 2),
    groupsPerRound,
    maxGroupsPerRound: envInt('OWRL_MAX_GROUPS_PER_ROUND', groupsPerRound * 2, env, 1),
    curriculum: curriculumRaw ? parseCurriculum('OWRL_CURRICULUM', curriculumRaw) : DEFAULTS.curriculum.map((s) => ({ ...s })),
    maxAttempts: envInt('OWRL_MAX_ATTEMPTS', DEFAULTS.maxAttempts, env, 1),
    failureRules: failureRules(env),
    roundTimeoutMs: envInt('OWRL_ROUND_TIMEOUT_S', 900, env, 1) * 1000,
    temperature: envNumber('OWRL_TEMPERATURE', 1, env, { min: 0.01 }),
    learningRate: envNumber('OWRL_LR', 0, env, { min: 0 }),
    ppoEpochs: envInt('OWRL_PPO_EPOCHS', DEFAULT_UPDATE.epochs, env, 1),
    minibatches: envInt('OWRL_MINIBATCHES', DEFAULT_UPDATE.minibatches, env, 1),
    clipLow: envNumber('OWRL_CLIP_LOW', DEFAULTS.clipLow, env, { min: 0 }),
    clipHigh: envNumber('OWRL_CLIP_HIGH', DEFAULTS.clipHigh, env, { min: 0 }),
    trustKl: envNumber('OWRL_TRUST_KL', DEFAULT_UPDATE.trustKl, env, { min: 0 }),
    tasksFiles,
    sitesUrl: envString('OWRL_SITES_URL', '', env),
    // With task files, bundled suites join only when named.
    suites: envList('OWRL_SUITES', tasksFiles.length > 0 ? [] : ['shop'], env),
    taskSeed: envInt('OWRL_TASK_SEED', 7, env),
    taskCount: envInt('OWRL_TASK_COUNT', 60, env, 1),
    difficulties: envList('OWRL_DIFFICULTIES', [], env).map((d) => {
      const n = Number(d);
      if (!Number.isInteger(n) || n < 1) throw new ConfigError('OWRL_DIFFICULTIES', `OWRL_DIFFICULTIES: ${JSON.stringify(d)} is not a positive integer`);
      return n;
    }),
    levels: {
      initial: envInt('OWRL_LEVELS_INITIAL', 2, env, 1),
      unlockAt: envNumber('OWRL_LEVELS_UNLOCK_AT', 0.5, env, { min: 0 }),
      window: envInt('OWRL_LEVELS_WINDOW', 20, env, 1),
    },
    grpcHost: envString('OWRL_GRPC_HOST', '0.0.0.0', env),
    grpcPort: port('OWRL_GRPC_PORT', 50051, env),
    artifactHost: envString('OWRL_ARTIFACT_HOST', '0.0.0.0', env),
    artifactPort: port('OWRL_ARTIFACT_PORT', 8401, env),
    advertiseHost: envString('OWRL_ADVERTISE_HOST', '127.0.0.1', env),
    dataDir: envString('OWRL_DATA_DIR', '.owrl/learner', env),
    keepArtifacts: envInt('OWRL_KEEP_ARTIFACTS', 5, env, 0),
    keepRounds: envInt('OWRL_KEEP_ROUNDS', DEFAULT_KEEP_ROUNDS, env, 0),
    resume: envBool('OWRL_RESUME', false, env),
    heldSteps: heldStepsMode(env),
    controlToken: envString('OWRL_CONTROL_TOKEN', '', env),
    metricsPort: port('OWRL_METRICS_PORT', 0, env),
    seed: envInt('OWRL_SEED', 1, env),
    blacklistFailures: envInt('OWRL_BLACKLIST_FAILURES', 5, env, 0),
    blacklistWindowMs: envInt('OWRL_BLACKLIST_WINDOW_S', 600, env, 1) * 1000,
    blacklistTtlMs: envInt('OWRL_BLACKLIST_TTL_S', 1800, env, 1) * 1000,
    scoredAckWaitMs: 0,
    scoredMaxAckPending: envInt('OWRL_SCORED_MAX_ACK_PENDING', 20_000, env, 1),
    stopGraceMs: envInt('OWRL_STOP_GRACE_S', 30, env, 0) * 1000,
    crashAt: null,
    initPolicy: envString('OWRL_INIT_POLICY', '', env),
    trainer: parseTrainer(envString('OWRL_TRAINER', 'inprocess', env)),
    trainerToken: envSecret('OWRL_TRAINER_TOKEN', env),
  };
  // Default ack_wait: a third of the round timeout, within 3-60 s.
  cfg.scoredAckWaitMs = envInt('OWRL_SCORED_ACK_WAIT_S', Math.min(60, Math.max(3, Math.floor(cfg.roundTimeoutMs / 3000))), env, 3) * 1000;
  try {
    cfg.crashAt = parseCrashAt(envString('OWRL_CRASH_AT', '', env));
  } catch (e) {
    throw new ConfigError('OWRL_CRASH_AT', (e as Error).message);
  }
  if (!RUN_ID.test(cfg.runId)) {
    throw new ConfigError('OWRL_RUN_ID', `OWRL_RUN_ID=${JSON.stringify(cfg.runId)} must be 1-64 letters, digits, '_' or '-' (it is a NATS subject token)`);
  }
  if (cfg.grpcPort !== 0 && cfg.grpcPort === cfg.artifactPort) {
    throw new ConfigError('OWRL_ARTIFACT_PORT', `OWRL_ARTIFACT_PORT=${cfg.artifactPort} is the same as OWRL_GRPC_PORT`);
  }
  if (cfg.roundTimeoutMs <= cfg.scoredAckWaitMs) {
    throw new ConfigError(
      'OWRL_ROUND_TIMEOUT_S',
      `OWRL_ROUND_TIMEOUT_S=${cfg.roundTimeoutMs / 1000} must exceed OWRL_SCORED_ACK_WAIT_S=${cfg.scoredAckWaitMs / 1000}: after a restart, unacked scored trajectories come back only after ack_wait`,
    );
  }
  if (cfg.initPolicy) checkInitPolicy(cfg.initPolicy);
  if (cfg.initPolicy && cfg.trainer !== 'inprocess') {
    throw new ConfigError('OWRL_INIT_POLICY', `OWRL_INIT_POLICY is for the in-process trainer; with OWRL_TRAINER=${cfg.trainer.address} the trainer's own version 0 is the initial policy`);
  }
  if (cfg.levels.unlockAt > 1) throw new ConfigError('OWRL_LEVELS_UNLOCK_AT', `OWRL_LEVELS_UNLOCK_AT=${cfg.levels.unlockAt} is a success rate: 0 to 1`);
  if (cfg.tasksFiles.length === 0 && !cfg.sitesUrl) {
    throw new ConfigError('OWRL_TASKS_FILE', 'no task source: set OWRL_TASKS_FILE (JSONL tasks) or OWRL_SITES_URL (bundled sites server)');
  }
  if (cfg.maxGroupsPerRound < cfg.groupsPerRound) {
    throw new ConfigError('OWRL_MAX_GROUPS_PER_ROUND', `OWRL_MAX_GROUPS_PER_ROUND=${cfg.maxGroupsPerRound} is below OWRL_GROUPS_PER_ROUND=${cfg.groupsPerRound}`);
  }
  return cfg;
}
