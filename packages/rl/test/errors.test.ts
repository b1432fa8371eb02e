// RlError is an OwrlError: isRlError matches its class and, when asked, its code, and refuses another error.
import { test } from 'node:test';
import { assertCodedError } from '@owrl/core/testing';
import { isRlError, RlError, RlErrorCode } from '../src/index.js';

void test('isRlError matches a RlError and its code, and refuses another code or error', () => {
  const e = new RlError(RlErrorCode.InvalidArgument, 'x');
  assertCodedError(e, isRlError, RlErrorCode.InvalidArgument, RlErrorCode.InvalidState);
});
