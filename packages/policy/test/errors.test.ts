// The policy errors: isPolicyError matches the class and, when asked, the code; the unavailable
// backend's subclass has a predicate of its own; both refuse another error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertCodedError } from '@owrl/core/testing';
import { isPolicyError, isPolicyUnavailableError, PolicyError, PolicyErrorCode, PolicyUnavailableError } from '../src/index.js';

void test('isPolicyError matches a PolicyError and its code, and refuses another code or error', () => {
  const e = new PolicyError(PolicyErrorCode.InvalidTrace, 'trace of step 3 has no candidates');
  assertCodedError(e, isPolicyError, PolicyErrorCode.InvalidTrace, PolicyErrorCode.InvalidArtifact);
});

void test('isPolicyUnavailableError matches the subclass only; it is a PolicyError POLICY_UNAVAILABLE with a reason', () => {
  const e = new PolicyUnavailableError('the server did not answer', { reason: 'policy_rejected' });
  assert.ok(isPolicyUnavailableError(e));
  assert.ok(isPolicyError(e, PolicyErrorCode.Unavailable));
  assert.equal(e.code, 'POLICY_UNAVAILABLE');
  assert.equal(e.reason, 'policy_rejected');
  assert.equal(new PolicyUnavailableError('x').reason, 'policy_unavailable');
  assert.equal(isPolicyUnavailableError(new PolicyError(PolicyErrorCode.InferenceFailed, 'x')), false);
  assert.equal(isPolicyUnavailableError(new Error('x')), false);
});
