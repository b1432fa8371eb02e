// GRPO math of owrl (pure TypeScript): group advantages and dynamic sampling, the clipped
// objective with exact gradients for the pointer policy, sparse Adam, the trainer and the
// rollout-length curriculum.
export * from './errors.js';
export * from './advantages.js';
export * from './grpo.js';
export * from './adam.js';
export * from './trainer.js';
export * from './curriculum.js';
export * from './behaviour-cloning.js';
export type { PolicyTrainer } from './trainer-contract.js';
