// One decision of a demonstration (shared by recording and SFT export).
import type { ToolCallSpec } from '@owrl/core';
import type { PolicyInput } from '@owrl/browser-env';

/** One decision of a demonstration: what the policy saw and what it did. */
export interface DemoStep {
  input: PolicyInput;
  reasoning: string;
  calls: ToolCallSpec[];
  /** The policy's own reply text, when it produced one (a language model); the SFT target then. */
  raw?: string;
}
