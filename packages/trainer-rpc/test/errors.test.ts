// TrainerError is an OwrlError: isTrainerError matches its class and, when asked, its code (also
// after a trip through the gRPC trailer), and refuses another error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertCodedError } from '@owrl/core/testing';
import { fromServiceError, isTrainerError, toServiceError, TrainerError, TrainerErrorCode } from '@owrl/trainer-rpc';

void test('isTrainerError matches a TrainerError and its code, across the wire, and refuses another code or error', () => {
  const e = new TrainerError(TrainerErrorCode.UnknownBaseVersion, 'base_version 7 is not held');
  assertCodedError(e, isTrainerError, TrainerErrorCode.UnknownBaseVersion, TrainerErrorCode.Failed);
  const back = fromServiceError(toServiceError(e), 'Train');
  assert.ok(isTrainerError(back, TrainerErrorCode.UnknownBaseVersion));
});
