// JudgeModelError is an OwrlError: isJudgeModelError matches its class and, when asked, its code, and refuses another error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OwrlError } from '@owrl/core';
import { isJudgeModelError, JudgeModelError, JudgeModelErrorCode } from '@owrl/judge-model';

void test('isJudgeModelError matches a JudgeModelError and its code, and refuses another code or error', () => {
  const e = new JudgeModelError(JudgeModelErrorCode.DeviceUnavailable, 'x');
  assert.ok(e instanceof OwrlError);
  assert.ok(isJudgeModelError(e));
  assert.ok(isJudgeModelError(e, JudgeModelErrorCode.DeviceUnavailable));
  assert.equal(isJudgeModelError(e, JudgeModelErrorCode.Timeout), false);
  assert.equal(isJudgeModelError(new OwrlError(JudgeModelErrorCode.DeviceUnavailable, 'x')), false);
  assert.equal(isJudgeModelError(new Error('x')), false);
});
