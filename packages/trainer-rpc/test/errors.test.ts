// TrainerError is an OwrlError: isTrainerError matches its class and, when asked, its code (also
// after a trip through the gRPC trailer), and refuses another error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OwrlError } from '@owrl/core';
import { fromServiceError, isTrainerError, toServiceError, TrainerError, TrainerErrorCode } from '@owrl/trainer-rpc';

void test('isTrainerError matches a TrainerError and its code, across the wire, and refuses another code or error', () => {
  const e = new TrainerError(TrainerErrorCode.UnknownBaseVersion, 'base_version 7 is not held');
  assert.ok(e instanceof OwrlError);
  assert.ok(isTrainerError(e));
  assert.ok(isTrainerError(e, TrainerErrorCode.UnknownBaseVersion));
  assert.equal(isTrainerError(e, TrainerErrorCode.Failed), false);
  const back = fromServiceError(toServiceError(e), 'Train');
  assert.ok(isTrainerError(back, TrainerErrorCode.UnknownBaseVersion));
  assert.equal(isTrainerError(new OwrlError(TrainerErrorCode.Failed, 'x')), false);
  assert.equal(isTrainerError(new Error('x')), false);
});
