// The run file's schema: every section and key, its type and range, the environment variables it
// sets (the services' own settings, which stay overrides on top of the file), the services that
// read it and its default. The same declarations validate a file (load.ts), map it onto each
// service's settings (service-env.ts) and generate the reference (reference.ts → docs/run-file.md).
// Defaults are the services' own: a key left out sets nothing, and the service's default applies.
import { z } from 'zod';

/** Documentation and mapping of one key (zod metadata, also carried into the JSON Schema). */
export interface FieldMeta {
  description: string;
  /** Environment variables the key sets (each one overrides the key when set in the environment). */
  env?: readonly string[];
  /**
   * The key names an environment variable that holds a secret: the service reads the secret from
   * that variable and sets this one (`api_key_env: MY_KEY` sets OWRL_POLICY_API_KEY from $MY_KEY).
   */
  secretFor?: string;
  /** The service's default, as the reference shows it. */
  default?: string;
  /** Not read by the services: only by `owrl train` (what it starts, how it follows the run). */
  cliOnly?: boolean;
}

/** Documentation of a section and the services that read it. */
export interface SectionMeta {
  description: string;
  services: readonly string[];
}

/** The services of owrl (their start-up names). */
export const SERVICE_NAMES = ['learner', 'actor', 'judge', 'console', 'sites', 'trainer'] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];

const BUS_SERVICES = ['learner', 'actor', 'judge', 'console'] as const;

/** The bundled suites (services/sites; `owrl tasks suites`). */
export const BUNDLED_SUITES = ['shop', 'travel', 'wiki', 'mail'] as const;

function field<T extends z.ZodType>(type: T, meta: FieldMeta): z.ZodOptional<T> {
  return type.optional().meta({ ...meta });
}

const int = (min: number, max?: number) => (max === undefined ? z.number().int().min(min) : z.number().int().min(min).max(max));
const num = (min: number, max?: number) => (max === undefined ? z.number().min(min) : z.number().min(min).max(max));
const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, { message: 'must be the name of an environment variable (letters, digits, _)' });
const httpUrl = z.string().regex(/^https?:\/\/[^/\s]+/, { message: 'must be an http(s) URL' });
const hostPort = z.string().regex(/^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):\d{1,5}$/, { message: 'must be host:port' });

export const stateSection = z
  .object({
    run_id: field(z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, { message: "must be 1-64 letters, digits, '_' or '-' (it is a NATS subject token)" }), {
      description: 'The run: names its checkpoint, its streams and its folder. Needed to resume; `owrl train` makes one from the file name and the time when it is left out.',
      env: ['OWRL_RUN_ID'],
      default: '<file name>-<UTC time> (learner: run-<UTC time>)',
    }),
    data_dir: field(z.string().min(1), {
      description:
        'Where the run keeps its state: `<data_dir>/<run_id>/` holds the learner checkpoint, the policy versions, the logs, the report and the run file as it was started (for --resume). Relative to the current folder.',
      env: ['OWRL_DATA_DIR'],
      default: 'runs (learner: .owrl/learner)',
    }),
    learner: field(hostPort, {
      description: "The learner's gRPC address, for `owrl train` joining a run whose learner already runs (with nats.url) and for the console.",
      env: ['OWRL_LEARNER'],
      default: '127.0.0.1:50051',
    }),
  })
  .strict()
  .meta({ description: 'Where the run and its state live.', services: ['learner', 'console'] } satisfies SectionMeta);

export const natsSection = z
  .object({
    url: field(z.string().regex(/^(nats|tls|ws|wss):\/\/[^\s,]+(,(nats|tls|ws|wss):\/\/[^\s,]+)*$/, { message: 'must be nats://host:port (several comma-separated)' }), {
      description: 'The JetStream server(s). Left out, `owrl train` starts a nats-server of its own; given (or `--nats URL`), it joins the services already running there.',
      env: ['NATS_URL'],
      default: 'nats://127.0.0.1:4222',
    }),
    user: field(z.string().min(1), { description: 'User name (with password_env).', env: ['NATS_USER'] }),
    password_env: field(envName, { description: 'The environment variable holding the password.', secretFor: 'NATS_PASSWORD' }),
    token_env: field(envName, { description: 'The environment variable holding an authentication token.', secretFor: 'NATS_TOKEN' }),
    creds_file: field(z.string().min(1), { description: 'A creds file (user JWT and nkey seed).', env: ['NATS_CREDS'] }),
    nkey_seed_file: field(z.string().min(1), { description: 'A file holding a user nkey seed.', env: ['NATS_NKEY_SEED_FILE'] }),
    actors_ack_wait_s: field(int(2), { description: "How long a killed actor's rollout requests wait before redelivery, s (every service must agree).", env: ['OWRL_ACTORS_ACK_WAIT_S'], default: '60' }),
    judge_ack_wait_s: field(int(2), { description: "How long a killed judge's trajectories wait before redelivery, s (every service must agree).", env: ['OWRL_JUDGE_ACK_WAIT_S'], default: '60' }),
  })
  .strict()
  .meta({ description: 'The NATS JetStream connection every service but the sites and the trainer uses. Secrets stay in the environment: the file names the variables.', services: BUS_SERVICES } satisfies SectionMeta);

const curriculumStage = z.object({
  rounds: int(1).optional().meta({ description: 'Rounds of this stage; the last stage goes on to the end of the run (rounds may then be left out).' }),
  max_steps: int(1).meta({ description: 'Most steps an episode may take in this stage.' }),
}).strict();

export const tasksSection = z
  .object({
    suites: field(z.array(z.enum(BUNDLED_SUITES)).min(1), {
      description: 'Bundled suites the tasks are drawn from (their sites are started by `owrl train` unless sites_url is given).',
      env: ['OWRL_SUITES'],
    }),
    files: field(z.array(z.string().min(1)).min(1), {
      description: 'JSONL task files (docs/tasks.md; `owrl tasks validate`), relative to the run file. Tasks without a verifier need a judge model (judge.kind onnx or api).',
      env: ['OWRL_TASKS_FILE'],
    }),
    sites_url: field(httpUrl, { description: 'A bundled sites server that already runs (e.g. http://sites:8400).', env: ['OWRL_SITES_URL'] }),
    count: field(int(1), { description: 'Tasks drawn per bundled suite.', env: ['OWRL_TASK_COUNT'], default: '60' }),
    seed: field(int(0), { description: 'Seed of the tasks drawn from the bundled suites.', env: ['OWRL_TASK_SEED'], default: '7' }),
    difficulties: field(z.array(int(1)).min(1), { description: 'Difficulty levels (steps) of the bundled tasks drawn.', env: ['OWRL_DIFFICULTIES'], default: 'all' }),
    curriculum: field(
      z
        .object({
          initial_levels: int(1).optional().meta({ description: 'Difficulty levels open from the start.', env: ['OWRL_LEVELS_INITIAL'], default: '2' }),
          unlock_at: num(0, 1).optional().meta({ description: 'A level opens once every easier level reaches this success rate.', env: ['OWRL_LEVELS_UNLOCK_AT'], default: '0.5' }),
          window: int(1).optional().meta({ description: 'Recent outcomes per level that decide unlocking.', env: ['OWRL_LEVELS_WINDOW'], default: '20' }),
        })
        .strict(),
      { description: 'The difficulty curriculum: harder levels open as the easier ones are mastered.' },
    ),
  })
  .strict()
  .meta({ description: 'What the policy is trained on: task files and/or bundled suites, and the difficulty curriculum.', services: ['learner', 'sites'] } satisfies SectionMeta);

export const policySection = z
  .object({
    kind: field(z.enum(['pointer', 'openai']), {
      description: 'pointer: the built-in policy (ONNX, trained in process); openai: a model behind an OpenAI-compatible endpoint (vLLM, SGLang, a hosted API).',
      env: ['OWRL_POLICY'],
      default: 'pointer',
    }),
    base_url: field(httpUrl, { description: "openai: the endpoint's API base, e.g. http://vllm:8000/v1.", env: ['OWRL_POLICY_BASE_URL'] }),
    model: field(z.string().min(1), { description: 'openai: the model the endpoint serves (the base model the trainer trains).', env: ['OWRL_POLICY_MODEL'] }),
    engine: field(z.enum(['vllm', 'sglang', 'openai']), { description: 'openai: the serving engine (how it loads new versions; openai = a hosted API that loads none).', env: ['OWRL_POLICY_ENGINE'], default: 'vllm' }),
    api_key_env: field(envName, { description: 'openai: the environment variable holding the API key.', secretFor: 'OWRL_POLICY_API_KEY' }),
    temperature: field(num(0.01), { description: 'Sampling temperature (the behaviour log-probs are taken at it; also the trainer\'s).', env: ['OWRL_TEMPERATURE', 'OWRL_POLICY_TEMPERATURE'], default: '1' }),
    top_p: field(num(0, 1), { description: 'openai: nucleus sampling.', env: ['OWRL_POLICY_TOP_P'] }),
    top_k: field(int(-1), { description: 'openai: top-k sampling (-1 = off).', env: ['OWRL_POLICY_TOP_K'], default: '-1' }),
    min_p: field(num(0, 1), { description: 'openai: min-p sampling (0 = off).', env: ['OWRL_POLICY_MIN_P'], default: '0' }),
    repetition_penalty: field(z.number().gt(0), { description: 'openai: repetition penalty (1 = off).', env: ['OWRL_POLICY_REPETITION_PENALTY'], default: '1' }),
    presence_penalty: field(num(-2, 2), { description: 'openai: presence penalty (0 = off).', env: ['OWRL_POLICY_PRESENCE_PENALTY'], default: '0' }),
    frequency_penalty: field(num(-2, 2), { description: 'openai: frequency penalty (0 = off).', env: ['OWRL_POLICY_FREQUENCY_PENALTY'], default: '0' }),
    logprobs_mode: field(z.enum(['raw', 'temperature', 'processed']), {
      description:
        "openai: which log-probs the engine was started to report (vLLM --logprobs-mode; SGLang reports them after the temperature). Every sampling key is sent on every request, so the model's generation config fills in none; vLLM's raw log-probs with a temperature other than 1 or a penalty are refused.",
      env: ['OWRL_POLICY_LOGPROBS_MODE'],
      default: 'raw with vllm, temperature with sglang, processed with openai',
    }),
    max_tokens: field(int(1), { description: 'openai: most tokens of one reply.', env: ['OWRL_POLICY_MAX_TOKENS'], default: '1024' }),
    history: field(z.enum(['full', 'hide_thinking', 'action_only']), { description: 'openai: what earlier turns keep in the prompt.', env: ['OWRL_POLICY_HISTORY'], default: 'full' }),
    screenshots: field(int(0), { description: 'openai: screenshots per turn (the latest K).', env: ['OWRL_POLICY_SCREENSHOTS'], default: '1' }),
    timeout_ms: field(int(1), { description: 'openai: timeout of one request, ms.', env: ['OWRL_POLICY_TIMEOUT_MS'], default: '30000' }),
    retries: field(int(0), { description: 'openai: retries of a failed request.', env: ['OWRL_POLICY_RETRIES'], default: '2' }),
    load_weights: field(z.boolean(), { description: 'openai: make the engine load each new version before naming it.', env: ['OWRL_POLICY_LOAD_WEIGHTS'], default: 'true with vllm and sglang' }),
    warmup: field(
      z
        .object({
          enabled: z.boolean().optional().meta({ description: 'Clone the bundled sites\' scripted solvers into the pointer policy before RL.', default: 'false' }),
          tasks: int(1).optional().meta({ description: 'Demonstration tasks per suite.', default: '8' }),
          epochs: int(1).optional().meta({ description: 'Behaviour-cloning epochs.', default: '30' }),
        })
        .strict(),
      { description: 'pointer on bundled suites: behaviour cloning before RL (`owrl train` runs it; the learner starts from its policy).', cliOnly: true },
    ),
  })
  .strict()
  .meta({ description: 'The policy the actors run.', services: ['actor', 'learner', 'trainer'] } satisfies SectionMeta);

export const trainerSection = z
  .object({
    kind: field(z.enum(['inprocess', 'remote']), { description: 'inprocess: the built-in pointer trainer inside the learner; remote: an owrl.v1.Trainer at address (docs/trainer.md).', env: ['OWRL_TRAINER'], default: 'inprocess' }),
    address: field(hostPort, { description: 'remote: host:port of the trainer.', env: ['OWRL_TRAINER'] }),
    token_env: field(envName, { description: 'remote: the environment variable holding the bearer token the trainer checks.', secretFor: 'OWRL_TRAINER_TOKEN' }),
  })
  .strict()
  .meta({ description: 'Where the gradient step runs.', services: ['learner', 'trainer'] } satisfies SectionMeta);

export const judgeSection = z
  .object({
    kind: field(z.enum(['verifiers', 'onnx', 'api']), {
      description: "verifiers: the tasks' own verifiers only; onnx: a judge model run by the judge (ONNX export); api: a judge model behind an OpenAI-compatible API.",
      env: ['OWRL_JUDGE_BACKEND'],
      default: 'verifiers',
    }),
    model_dir: field(z.string().min(1), { description: 'onnx: the model folder (docs/judge.md), relative to the run file.', env: ['OWRL_JUDGE_MODEL'] }),
    device: field(z.enum(['auto', 'cuda', 'webgpu', 'cpu']), { description: 'onnx: where the model runs.', env: ['OWRL_JUDGE_DEVICE'], default: 'auto' }),
    url: field(httpUrl, { description: "api: the endpoint's API base.", env: ['OWRL_JUDGE_API_URL'] }),
    model: field(z.string().min(1), { description: 'api: the model name it serves.', env: ['OWRL_JUDGE_API_MODEL'] }),
    api_key_env: field(envName, { description: 'api: the environment variable holding the API key.', secretFor: 'OWRL_JUDGE_API_KEY' }),
    image: field(z.boolean(), { description: 'api: send the final screenshot (vision-language judges).', env: ['OWRL_JUDGE_API_IMAGE'], default: 'true' }),
    threshold: field(num(0, 1), { description: 'P(success) above which an episode counts as a success.', env: ['OWRL_JUDGE_THRESHOLD'], default: "0.5 (onnx: the model folder's)" }),
    shadow: field(z.boolean(), { description: 'Also judge verified tasks with the model and measure it against the verifiers.', env: ['OWRL_JUDGE_SHADOW'], default: 'true' }),
    max_batch: field(int(1), { description: 'onnx: most rows in one forward pass.', env: ['OWRL_JUDGE_MAX_BATCH'], default: '8 on the CPU, 32 on a GPU' }),
    batch_tokens: field(int(1), { description: 'onnx: most padded positions (rows × longest row) in one forward pass; rows are ordered by length first.', env: ['OWRL_JUDGE_BATCH_TOKENS'], default: '16384' }),
    workers: field(int(1), { description: 'onnx: inference threads on the CPU, one model copy each (a GPU holds one copy).', env: ['OWRL_JUDGE_WORKERS'], default: '1' }),
    prepare_workers: field(int(0), { description: 'onnx: threads that render, tokenize and preprocess prompts beside the model.', env: ['OWRL_JUDGE_PREPARE_WORKERS'], default: '2 on a GPU, 0 on the CPU' }),
    concurrency: field(int(1), { description: 'Trajectories judged at once.', env: ['OWRL_JUDGE_CONCURRENCY'], default: '64 verifiers only or a model on a GPU, 8 otherwise' }),
    timeout_ms: field(int(1), { description: 'Timeout of one judgement, ms.', env: ['OWRL_JUDGE_TIMEOUT_MS'], default: '10000 (api: 30000)' }),
  })
  .strict()
  .meta({ description: 'How trajectories are scored (format check and rule filter first, always).', services: ['judge'] } satisfies SectionMeta);

export const recipeSection = z
  .object({
    group_size: field(int(2), { description: 'Rollouts per task in a group (GRPO).', env: ['OWRL_GROUP_SIZE'], default: '5' }),
    groups_per_round: field(int(1), { description: 'Kept groups an update trains on.', env: ['OWRL_GROUPS_PER_ROUND'], default: '8' }),
    max_groups_per_round: field(int(1), { description: 'Dynamic-sampling cap: most groups dispatched in a round while all-0/all-1 groups are dropped.', env: ['OWRL_MAX_GROUPS_PER_ROUND'], default: '2 × groups_per_round' }),
    rounds: field(int(1), { description: 'Rounds (policy updates) of the run.', env: ['OWRL_ROUNDS'], default: '140' }),
    curriculum: field(z.array(curriculumStage).min(1), { description: 'Rollout-length curriculum: stages of {rounds, max_steps}.', env: ['OWRL_CURRICULUM'], default: '[{rounds: 90, max_steps: 15}, {rounds: 50, max_steps: 30}]' }),
    mode: field(z.enum(['sync', 'async']), { description: 'sync: dispatch a round, wait, update; async: keep every slot busy and update as soon as enough groups are in.', env: ['OWRL_MODE'], default: 'sync' }),
    max_staleness: field(int(0), { description: 'async: a trajectory more than this many versions behind the update is dropped.', env: ['OWRL_MAX_STALENESS'], default: '4' }),
    clip_low: field(num(0, 1), { description: 'Lower clip of the importance ratio (1 - clip_low).', env: ['OWRL_CLIP_LOW'], default: '0.2' }),
    clip_high: field(num(0, 1), { description: 'Upper clip of the importance ratio (1 + clip_high).', env: ['OWRL_CLIP_HIGH'], default: '0.28' }),
    epochs: field(int(1), { description: 'PPO epochs per update.', env: ['OWRL_PPO_EPOCHS'], default: '1' }),
    minibatches: field(int(1), { description: 'Minibatches per epoch (one optimizer step each).', env: ['OWRL_MINIBATCHES'], default: '6' }),
    learning_rate: field(num(0, 1), { description: "Learning rate (0 = the trainer's default).", env: ['OWRL_LR'], default: '0 (pointer: 0.05)' }),
    trust_kl: field(num(0), { description: 'KL trust region per minibatch, nats per action (in-process trainer; 0 = off).', env: ['OWRL_TRUST_KL'], default: '0.1' }),
    max_attempts: field(int(1), { description: 'Attempts of a rollout that fails for infrastructure reasons; a group one of whose samples spends them is dropped whole and counted.', env: ['OWRL_MAX_ATTEMPTS'], default: '3' }),
    timeout_blame: field(z.enum(['timings', 'site', 'policy']), {
      description:
        "Who a task timeout is blamed on. timings: the policy when the episode spent at least timeout_policy_share of its wall time in the policy (scored 0 and trained), else the site (excluded and re-dispatched); site; policy. The run state, `owrl status` and the report show the rule and what it decided.",
      env: ['OWRL_TIMEOUT_BLAME'],
      default: 'timings',
    }),
    timeout_policy_share: field(z.number().gt(0).max(1), { description: "timings: the share of an episode's wall time in the policy from which its timeout is the policy's.", env: ['OWRL_TIMEOUT_POLICY_SHARE'], default: '0.5' }),
    round_timeout_s: field(int(1), { description: 'Longest a round may take, s.', env: ['OWRL_ROUND_TIMEOUT_S'], default: '900' }),
  })
  .strict()
  .meta({ description: 'The training recipe (GRPO with dynamic sampling and a clipped objective).', services: ['learner', 'trainer'] } satisfies SectionMeta);

export const fleetSection = z
  .object({
    actors: field(int(1), { description: 'Actors `owrl train` starts on this machine (a cluster scales its own).', default: '2', cliOnly: true }),
    slots: field(int(1), { description: 'Browser slots (concurrent episodes) per actor.', env: ['OWRL_SLOTS'], default: '4' }),
    allow_hosts: field(z.array(z.string().regex(/^[A-Za-z0-9.[\]:-]+$/, { message: 'must be host or host:port' })), {
      description: 'Private host[:port] entries the browsers may reach (everything private is refused otherwise; the bundled sites are added by `owrl train`).',
      env: ['OWRL_ALLOW_HOSTS'],
    }),
    chromium: field(z.string().min(1), { description: 'The Chromium binary.', env: ['OWRL_CHROMIUM'], default: '/usr/bin/chromium (the headless shell on the bundled sites, where installed)' }),
    step_screenshots: field(z.boolean(), { description: "Keep every step's screenshot for the console's trajectory viewer.", env: ['OWRL_STEP_SCREENSHOTS'], default: 'true' }),
  })
  .strict()
  .meta({ description: 'The browser actors.', services: ['actor'] } satisfies SectionMeta);

export const runFileSchema = z
  .object({
    log_level: field(z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']), { description: 'Log level of every service.', env: ['OWRL_LOG_LEVEL'], default: 'info' }),
    state: stateSection.optional(),
    nats: natsSection.optional(),
    tasks: tasksSection,
    policy: policySection.optional(),
    trainer: trainerSection.optional(),
    judge: judgeSection.optional(),
    recipe: recipeSection.optional(),
    fleet: fleetSection.optional(),
  })
  .strict();

export type RunFile = z.infer<typeof runFileSchema>;

/** The sections in the order the reference lists them. */
export const SECTIONS = ['state', 'nats', 'tasks', 'policy', 'trainer', 'judge', 'recipe', 'fleet'] as const;
export type SectionName = (typeof SECTIONS)[number];
