// @owrl/trainer: the built-in pointer trainer as its own process (main.ts); its settings.
export {
  readConfig,
  DEFAULT_TRAINER_PORT,
} from './config.js';
export type {
  TrainerConfig,
} from './config.js';
