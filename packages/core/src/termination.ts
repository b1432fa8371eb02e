// Termination classes (DESIGN §5) as plain names, and which of them train.

export const TERMINATION_CLASSES = [
  'COMPLETED',
  'STEP_BUDGET_EXHAUSTED',
  'GENERATION_LIMIT',
  'FORMAT_ERROR',
  'ENV_ERROR',
  'SANDBOX_ERROR',
  'INIT_ERROR',
] as const;
export type TerminationClassName = (typeof TERMINATION_CLASSES)[number];

/** Classes whose trajectories are scored and trained on (reward 0 unless COMPLETED and judged a success). */
export const TRAINABLE_CLASSES: ReadonlySet<TerminationClassName> = new Set([
  'COMPLETED',
  'STEP_BUDGET_EXHAUSTED',
  'GENERATION_LIMIT',
  'FORMAT_ERROR',
]);

/** Infrastructure outcomes: excluded from training and re-dispatched (bounded attempts). */
export function isInfrastructure(c: TerminationClassName): boolean {
  return !TRAINABLE_CLASSES.has(c);
}

/**
 * INIT_ERROR reason of a rollout the actor did not run because its host is blacklisted (KV
 * owrl_blacklist); it never counts toward the blacklist again.
 */
export const REASON_HOST_BLACKLISTED = 'host_blacklisted';

/**
 * `code` of an error a policy throws when its backend cannot answer (server errors and timeouts
 * after its own retries, a refused request). The episode then ends SANDBOX_ERROR with the error's
 * `reason` (default {@link REASON_POLICY_UNAVAILABLE}): an infrastructure outcome, never a reward.
 */
export const POLICY_UNAVAILABLE_CODE = 'POLICY_UNAVAILABLE';
export const REASON_POLICY_UNAVAILABLE = 'policy_unavailable';

/** The termination reason of a policy-unavailable error (see POLICY_UNAVAILABLE_CODE), else undefined. */
export function policyUnavailableReason(e: unknown): string | undefined {
  if (typeof e !== 'object' || e === null || (e as { code?: unknown }).code !== POLICY_UNAVAILABLE_CODE) return undefined;
  const reason = (e as { reason?: unknown }).reason;
  return typeof reason === 'string' && /^[a-z][a-z0-9_]*$/.test(reason) ? reason : REASON_POLICY_UNAVAILABLE;
}
