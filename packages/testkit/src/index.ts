// Shared test harness: real servers started per suite on free ports, whole systems of owrl
// service processes for cross-process and fault tests, and faithful stand-ins for what a user
// brings (an OpenAI-compatible model server with vLLM/SGLang shapes, a GPU trainer behind
// owrl.v1.Trainer).
export {
  freePort,
  freePorts,
  startNatsServer,
} from './nats-server.js';
export type {
  NatsServer,
  NatsServerOptions,
} from './nats-server.js';
export {
  WaitTimeoutError,
  WaitTimeoutErrorCode,
  isWaitTimeoutError,
  waitUntil,
} from './wait.js';
export type {
  WaitOptions,
} from './wait.js';
export {
  ServiceProcess,
} from './service-process.js';
export type {
  ServiceExit,
  ServiceProcessOptions,
} from './service-process.js';
export {
  LearnerProbe,
} from './learner-probe.js';
export {
  startSystem,
} from './system.js';
export type {
  OwrlSystem,
  RegisteredActor,
  SystemOptions,
} from './system.js';
export {
  expectSettledCounts,
  SHORT_RUN_ENV,
  waitForSettledCounts,
} from './settled-counts.js';
export type {
  SettledCounts,
} from './settled-counts.js';
export {
  startChatServer,
} from './chat-server.js';
export type {
  ChatEngine,
  ChatScript,
  ChatServerDouble,
  ChatServerOptions,
  RecordedChatRequest,
  ScriptedReply,
  SentCompletion,
  WeightCall,
} from './chat-server.js';
export {
  effectiveSampling,
  overflowRefusal,
  resolveModel,
} from './engine-rules.js';
export type {
  EffectiveSampling,
  EngineRefusal,
  GenerationConfig,
  ServedModel,
  VllmWording,
} from './engine-rules.js';
export {
  startFakeTrainer,
} from './fake-trainer.js';
export type {
  FakeTrainerDouble,
  FakeTrainerOptions,
  ReceivedUpdate,
} from './fake-trainer.js';
export {
  checkMetrics,
  lintExposition,
} from './metrics-lint.js';
export type {
  MetricsCheck,
} from './metrics-lint.js';
export {
  oracleDollars,
  oracleListing,
  oracleTotalCents,
} from './shop-oracle.js';
export type {
  OracleFilters,
  OracleProduct,
  OraclePromo,
  OracleRow,
  OracleSort,
} from './shop-oracle.js';
export {
  adapterServing,
  startLlmLoop,
  LLM_LOOP_BASE_MODEL,
  QWEN3_VL_GENERATION_CONFIG,
} from './llm-loop.js';
export type {
  LlmLoop,
  LlmLoopOptions,
} from './llm-loop.js';
export {
  parseAckSubject,
  watchRedeliveries,
} from './redeliveries.js';
export type {
  RedeliveryWatch,
} from './redeliveries.js';
export {
  awaitDeadLetter,
  exhaustDeliveries,
} from './exhaust-deliveries.js';
export {
  answerVerifier,
  buildScored,
  buildTrajectory,
} from './trajectories.js';
export type {
  ScoredInit,
  TrajectoryInit,
} from './trajectories.js';
export {
  findPython,
  REPO_ROOT,
  startPythonModule,
  TORCH_TRAINER_DIR,
  torchUnavailable,
} from './python-process.js';
export type {
  PythonProcess,
  PythonProcessOptions,
} from './python-process.js';
export {
  buildTinyModel,
  learningCheck,
  logprobParity,
  readTrainResults,
  startTorchLoop,
  TORCH_LOOP_BASE_MODEL,
  versionCheck,
} from './torch-loop.js';
export type {
  EngineDoubleStats,
  EngineLogprobsMode,
  LearningReport,
  ParityReport,
  TorchLoop,
  TorchLoopOptions,
  VersionReport,
} from './torch-loop.js';
