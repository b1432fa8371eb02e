// JudgeError is an OwrlError: isJudgeError matches its class and, when asked, its code, and refuses another error.
import { test } from 'node:test';
import { assertCodedError } from '@owrl/core/testing';
import { isJudgeError, JudgeError, JudgeErrorCode } from '@owrl/judge-core';

void test('isJudgeError matches a JudgeError and its code, and refuses another code or error', () => {
  const e = new JudgeError(JudgeErrorCode.VerifierUnavailable, 'x');
  assertCodedError(e, isJudgeError, JudgeErrorCode.VerifierUnavailable, JudgeErrorCode.InvalidConfig);
});
