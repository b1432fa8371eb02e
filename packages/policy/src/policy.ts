// The policy interface the actor drives, whatever the backend (the built-in ONNX pointer policy,
// an OpenAI-compatible model server): observation and history in, reasoning, tool calls and a
// trace (what the learner needs to recompute log-probabilities) out, plus the outcomes only a
// language model has (an unparseable reply, a token or context limit).
import { type HistoryEntry, type Observation, type Rng, type ToolCallSpec } from '@owrl/core';
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
  /** The policy's output as produced (a model's reply text); replayed to it as history. */
  raw?: string;
  /** The output could not be parsed; calls are empty. 3 in a row end the episode with FORMAT_ERROR. */
  parseError?: boolean;
  /** Why it could not be parsed, shown to the policy as the step's effect. */
  parseErrorDetail?: string;
  /** The model hit its token or context limit; the episode ends with GENERATION_LIMIT. */
  generationLimit?: boolean;
  /** Termination reason of the limit: `generation_limit` (length cut-off, the default) or `context_overflow`. */
  limitReason?: string;
}

export interface Policy {
  /** Artifact kind, e.g. "onnx-pointer". */
  readonly kind: string;
  /** Policy (weights) version that produced the decisions. */
  readonly version: bigint;
  /** Whether observations must carry screenshots. */
  readonly needsScreenshot: boolean;
  /**
   * Decides one step. `rng` makes sampling reproducible per rollout (a remote model gets a seed
   * drawn from it).
   * @throws PolicyError POLICY_ABORTED when `signal` fires first; POLICY_UNAVAILABLE when the
   *   backend cannot answer (the episode ends SANDBOX_ERROR, never with a reward).
   */
  decide(input: PolicyInput, signal?: AbortSignal, rng?: Rng): Promise<PolicyDecision>;
  /** Frees native resources; the instance is unusable afterwards. */
  release(): Promise<void>;
}
