// TaskError is an OwrlError: isTaskError matches its class and, when asked, its code, and refuses another error.
import { test } from 'node:test';
import { assertCodedError } from '@owrl/core/testing';
import { isTaskError, TaskError, TaskErrorCode } from '@owrl/tasks';

void test('isTaskError matches a TaskError and its code, and refuses another code or error', () => {
  const e = new TaskError(TaskErrorCode.Invalid, 'x');
  assertCodedError(e, isTaskError, TaskErrorCode.Invalid, TaskErrorCode.FileIo);
});
