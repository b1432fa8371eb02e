// RlError is an OwrlError: isRlError matches its class and, when asked, its code, and refuses another error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OwrlError } from '@owrl/core';
import { isRlError, RlError, RlErrorCode } from '../src/index.js';

void test('isRlError matches a RlError and its code, and refuses another code or error', () => {
  const e = new RlError(RlErrorCode.InvalidArgument, 'x');
  assert.ok(e instanceof OwrlError);
  assert.ok(isRlError(e));
  assert.ok(isRlError(e, RlErrorCode.InvalidArgument));
  assert.equal(isRlError(e, RlErrorCode.InvalidState), false);
  assert.equal(isRlError(new OwrlError(RlErrorCode.InvalidArgument, 'x')), false);
  assert.equal(isRlError(new Error('x')), false);
});
