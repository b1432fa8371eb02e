// Scripted-solver demonstrations of the bundled sites: the solvers' plans, recorded episodes with
// their verdicts, SFT records in OpenWebRL's agent format, and the behaviour-cloning warm-up of the
// built-in pointer policy.
export {
  SOLVER_SUITES,
  button,
  checkbox,
  finish,
  hasPopup,
  link,
  mailPlan,
  meta,
  radio,
  readText,
  shopPlan,
  timelineYear,
  titleOf,
  travelPlan,
  wikiPlan,
  write,
} from './plans/index.js';
export {
  fetchSuiteTasks,
  recordDemonstration,
} from './record.js';
export type {
  DemoStep,
  Demonstration,
  RecordOptions,
} from './record.js';
export {
  sftRecords,
} from './sft.js';
export type {
  ImageMode,
  SftRecord,
  SftRenderOptions,
} from './sft.js';
export {
  bcSamples,
  warmUp,
} from './warmup.js';
export type {
  SuccessFigure,
  WarmupOptions,
  WarmupResult,
} from './warmup.js';
