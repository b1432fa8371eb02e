// The policy interface the actor drives: observation and history in, reasoning, tool calls and a
// trace (what the learner needs to recompute log-probabilities) out.
import { type HistoryEntry, type Observation, type ToolCallSpec } from '@owrl/core';
import { type PolicyTrace } from '@owrl/proto';

export interface PolicyInput {
  instruction: string;
  observation: Observation;
  history: readonly HistoryEntry[];
  /** 0-based index of the step being decided. */
  step: number;
  maxSteps: number;
}

export interface PolicyDecision {
  reasoning: string;
  calls: ToolCallSpec[];
  trace: PolicyTrace;
}

export interface Policy {
  /** Artifact kind, e.g. "onnx-pointer". */
  readonly kind: string;
  /** Policy (weights) version that produced the decisions. */
  readonly version: bigint;
  /** Whether observations must carry screenshots. */
  readonly needsScreenshot: boolean;
  /** @throws PolicyError POLICY_ABORTED when `signal` fires first. */
  decide(input: PolicyInput, signal?: AbortSignal): Promise<PolicyDecision>;
  /** Frees native resources; the instance is unusable afterwards. */
  release(): Promise<void>;
}
