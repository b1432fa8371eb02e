// JudgeModelError is an OwrlError: isJudgeModelError matches its class and, when asked, its code, and refuses another error.
import { test } from 'node:test';
import { assertCodedError } from '@owrl/core/testing';
import { isJudgeModelError, JudgeModelError, JudgeModelErrorCode } from '@owrl/judge-model';

void test('isJudgeModelError matches a JudgeModelError and its code, and refuses another code or error', () => {
  const e = new JudgeModelError(JudgeModelErrorCode.DeviceUnavailable, 'x');
  assertCodedError(e, isJudgeModelError, JudgeModelErrorCode.DeviceUnavailable, JudgeModelErrorCode.Timeout);
});
