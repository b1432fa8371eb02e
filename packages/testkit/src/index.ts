// Shared test harness: real servers started per suite on free ports, whole systems of owrl
// service processes for cross-process and fault tests, and faithful stand-ins for what a user
// brings (an OpenAI-compatible model server with vLLM/SGLang shapes, a GPU trainer behind
// owrl.v1.Trainer).
export {
  freePort,
  freePorts,
  startNatsServer,
  type NatsServer,
  type NatsServerOptions,
} from './nats-server.js';
export {
  WaitTimeoutError,
  WaitTimeoutErrorCode,
  isWaitTimeoutError,
  waitUntil,
  type WaitOptions,
} from './wait.js';
export { ServiceProcess, type ServiceExit, type ServiceProcessOptions } from './service-process.js';
export { LearnerProbe } from './learner-probe.js';
export {
  startSystem,
  type OwrlSystem,
  type RegisteredActor,
  type SystemOptions,
} from './system.js';
export { expectSettledCounts, SHORT_RUN_ENV, waitForSettledCounts, type SettledCounts } from './settled-counts.js';
export { descendants as procDescendants, isAlive, readStat as readProcStat, type ProcInfo } from './proc-tree.js';
export {
  startChatServer,
  type ChatEngine,
  type ChatScript,
  type ChatServerDouble,
  type ChatServerOptions,
  type RecordedChatRequest,
  type ScriptedReply,
  type SentCompletion,
  type WeightCall,
} from './chat-server.js';
export {
  effectiveSampling,
  overflowRefusal,
  resolveModel,
  type EffectiveSampling,
  type EngineRefusal,
  type GenerationConfig,
  type ServedModel,
  type VllmWording,
} from './engine-rules.js';
export {
  startFakeTrainer,
  type FakeTrainerDouble,
  type FakeTrainerOptions,
  type ReceivedUpdate,
} from './fake-trainer.js';
export { checkMetrics, lintExposition, type MetricsCheck } from './metrics-lint.js';
export {
  oracleDollars,
  oracleListing,
  oracleTotalCents,
  type OracleFilters,
  type OracleProduct,
  type OraclePromo,
  type OracleRow,
  type OracleSort,
} from './shop-oracle.js';
export { adapterServing, startLlmLoop, LLM_LOOP_BASE_MODEL, QWEN3_VL_GENERATION_CONFIG, type LlmLoop, type LlmLoopOptions } from './llm-loop.js';
export { parseAckSubject, watchRedeliveries, type RedeliveryWatch } from './redeliveries.js';
export { exhaustDeliveries } from './exhaust-deliveries.js';
export { findPython, REPO_ROOT, startPythonModule, TORCH_TRAINER_DIR, torchUnavailable, type PythonProcess, type PythonProcessOptions } from './python-process.js';
export {
  buildTinyModel,
  learningCheck,
  logprobParity,
  readTrainResults,
  startTorchLoop,
  TORCH_LOOP_BASE_MODEL,
  versionCheck,
  type EngineDoubleStats,
  type EngineLogprobsMode,
  type LearningReport,
  type ParityReport,
  type TorchLoop,
  type TorchLoopOptions,
  type VersionReport,
} from './torch-loop.js';
