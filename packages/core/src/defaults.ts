// Defaults of the OpenWebRL recipe (docs/design.md §1) that the project ships. Every service reads its
// configuration from these, overridden by environment variables or flags.

export interface CurriculumStage {
  rounds: number;
  maxSteps: number;
}

export const DEFAULTS = {
  groupSize: 5,
  advantageEps: 1e-6,
  clipLow: 0.2,
  clipHigh: 0.28,
  ppoEpochs: 2,
  curriculum: [
    { rounds: 90, maxSteps: 15 },
    { rounds: 50, maxSteps: 30 },
  ] as readonly CurriculumStage[],
  screenshotsInContext: 1,
  timeouts: {
    initNavigationMs: 20_000,
    initRetries: 3,
    policyStepMs: 30_000,
    toolCallMs: 15_000,
    stepMs: 45_000,
    taskMs: 600_000,
    closeMs: 15_000,
  },
  maxConsecutiveFormatErrors: 3,
  /** Dispatch attempts of one rollout before it is abandoned (infrastructure failures). */
  maxAttempts: 3,
  /** JetStream consumer redeliveries before a message goes to the DLQ. */
  maxDeliver: 4,
  ackWaitMs: 60_000,
  workingIntervalMs: 15_000,
} as const;
