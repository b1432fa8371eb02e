// Scripted-solver demonstrations of the bundled sites: the solvers' plans, recorded episodes with
// their verdicts, SFT records in OpenWebRL's agent format, and the behaviour-cloning warm-up of the
// built-in pointer policy.
export * from './plans/index.js';
export * from './record.js';
export * from './sft.js';
export * from './pointer-episode.js';
export * from './warmup.js';
