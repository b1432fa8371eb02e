// @owrl/trainer: the built-in pointer trainer as its own process (main.ts); its settings.
export { readConfig, DEFAULT_TRAINER_PORT, type TrainerConfig } from './config.js';
