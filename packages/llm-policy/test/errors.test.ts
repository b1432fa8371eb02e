// The errors of the language-model policy: each predicate matches its class and, when asked, its
// code, and refuses another error.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { OwrlError } from '@owrl/core';
import {
  EngineLoadError,
  EngineLoadErrorCode,
  EngineWeightLoader,
  isEngineLoadError,
  isLlmPolicyError,
  LlmPolicyError,
  LlmPolicyErrorCode,
  probeEngine,
} from '@owrl/llm-policy';

void test('isLlmPolicyError: a baseUrl that is not a URL is LLM_POLICY_INVALID_CONFIG; another code or error is refused', async () => {
  const e: unknown = await probeEngine({ baseUrl: 'vllm:8000', model: 'm', engine: 'vllm' }).then(
    () => assert.fail('expected a refusal'),
    (x: unknown) => x,
  );
  assert.ok(e instanceof OwrlError);
  assert.ok(isLlmPolicyError(e));
  assert.ok(isLlmPolicyError(e, LlmPolicyErrorCode.InvalidConfig));
  assert.equal(isLlmPolicyError(e, LlmPolicyErrorCode.InvalidToolCall), false);
  assert.equal(isLlmPolicyError(new EngineLoadError(EngineLoadErrorCode.Failed, 'x')), false);
  assert.equal(isLlmPolicyError(new OwrlError(LlmPolicyErrorCode.InvalidConfig, 'x')), false);
});

void test('isEngineLoadError: an engine without a weight API is ENGINE_LOAD_UNSUPPORTED; another code or error is refused', () => {
  let e: unknown;
  try {
    new EngineWeightLoader({ engine: 'tgi' as never, baseUrl: 'http://127.0.0.1:1' });
  } catch (x) {
    e = x;
  }
  assert.ok(isEngineLoadError(e));
  assert.ok(isEngineLoadError(e, EngineLoadErrorCode.Unsupported));
  assert.equal(isEngineLoadError(e, EngineLoadErrorCode.Failed), false);
  assert.equal(isEngineLoadError(new LlmPolicyError(LlmPolicyErrorCode.InvalidInput, 'x')), false);
});
