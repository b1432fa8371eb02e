// TaskError is an OwrlError: isTaskError matches its class and, when asked, its code, and refuses another error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OwrlError } from '@owrl/core';
import { isTaskError, TaskError, TaskErrorCode } from '@owrl/tasks';

void test('isTaskError matches a TaskError and its code, and refuses another code or error', () => {
  const e = new TaskError(TaskErrorCode.Invalid, 'x');
  assert.ok(e instanceof OwrlError);
  assert.ok(isTaskError(e));
  assert.ok(isTaskError(e, TaskErrorCode.Invalid));
  assert.equal(isTaskError(e, TaskErrorCode.FileIo), false);
  assert.equal(isTaskError(new OwrlError(TaskErrorCode.Invalid, 'x')), false);
  assert.equal(isTaskError(new Error('x')), false);
});
