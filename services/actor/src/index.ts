// The actor service as a library (for embedding and tests); the process entry is main.ts.
export { Actor, type ActorDeps, type EpisodeRunner } from './actor.js';
export {
  POLICY_BACKENDS,
  loadActorConfig,
  type ActorConfig,
  type PolicyBackendName,
} from './config.js';
export { PolicyHolder } from './policy-holder.js';
export type { PolicyBackend } from './policy-backends.js';
