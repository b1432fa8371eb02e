// Errors of the language-model policy: bad configuration (naming the setting and value). A
// backend that cannot answer is a PolicyUnavailableError of @owrl/policy, so every backend ends
// an episode the same way.
import { OwrlError } from '@owrl/core';

export const LlmPolicyErrorCode = {
  InvalidConfig: 'LLM_POLICY_INVALID_CONFIG',
  InvalidInput: 'LLM_POLICY_INVALID_INPUT',
  /** A tool call the model wrote breaks its tool's schema; validateToolCall returns it as the call's error. */
  InvalidToolCall: 'LLM_POLICY_INVALID_TOOL_CALL',
} as const;
export type LlmPolicyErrorCode = (typeof LlmPolicyErrorCode)[keyof typeof LlmPolicyErrorCode];

export class LlmPolicyError extends OwrlError<LlmPolicyErrorCode> {
  override readonly name = 'LlmPolicyError';
}

export function isLlmPolicyError(e: unknown, code?: LlmPolicyErrorCode): e is LlmPolicyError {
  return e instanceof LlmPolicyError && (code === undefined || e.code === code);
}
