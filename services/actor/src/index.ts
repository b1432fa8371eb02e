// The actor service as a library (for embedding and tests); the process entry is main.ts.
export {
  Actor,
} from './actor.js';
export type {
  ActorDeps,
  EpisodeRunner,
} from './actor.js';
export {
  POLICY_BACKENDS,
  loadActorConfig,
} from './config.js';
export type {
  ActorConfig,
  PolicyBackendName,
} from './config.js';
export {
  PolicyHolder,
} from './policy-holder.js';
export type {
  PolicyBackend,
} from './policy-backends.js';
