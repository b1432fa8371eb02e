// JudgeError is an OwrlError: isJudgeError matches its class and, when asked, its code, and refuses another error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OwrlError } from '@owrl/core';
import { isJudgeError, JudgeError, JudgeErrorCode } from '@owrl/judge-core';

void test('isJudgeError matches a JudgeError and its code, and refuses another code or error', () => {
  const e = new JudgeError(JudgeErrorCode.VerifierUnavailable, 'x');
  assert.ok(e instanceof OwrlError);
  assert.ok(isJudgeError(e));
  assert.ok(isJudgeError(e, JudgeErrorCode.VerifierUnavailable));
  assert.equal(isJudgeError(e, JudgeErrorCode.InvalidConfig), false);
  assert.equal(isJudgeError(new OwrlError(JudgeErrorCode.VerifierUnavailable, 'x')), false);
  assert.equal(isJudgeError(new Error('x')), false);
});
