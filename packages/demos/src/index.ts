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
  type DemoStep,
  type Demonstration,
  type RecordOptions,
} from './record.js';
export { sftRecords, type ImageMode, type SftRecord, type SftRenderOptions } from './sft.js';
export {
  bcSamples,
  warmUp,
  type SuccessFigure,
  type WarmupOptions,
  type WarmupResult,
} from './warmup.js';
