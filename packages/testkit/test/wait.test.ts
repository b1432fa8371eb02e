// A wait that runs out of time throws WaitTimeoutError WAIT_TIMEOUT, an OwrlError: its predicate
// matches it and its code, and refuses another error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OwrlError } from '@owrl/core';
import { isWaitTimeoutError, waitUntil, WaitTimeoutErrorCode } from '../src/index.js';

void test('isWaitTimeoutError matches a wait past its deadline and refuses another error', async () => {
  const e: unknown = await waitUntil('nothing', () => undefined, { timeoutMs: 50, intervalMs: 10 }).then(
    () => assert.fail('expected a timeout'),
    (x: unknown) => x,
  );
  assert.ok(e instanceof OwrlError);
  assert.ok(isWaitTimeoutError(e));
  assert.ok(isWaitTimeoutError(e, WaitTimeoutErrorCode.Timeout));
  assert.equal(e.code, 'WAIT_TIMEOUT');
  assert.match(e.message, /^timed out after 50 ms waiting for nothing$/);
  assert.equal(isWaitTimeoutError(new OwrlError('WAIT_TIMEOUT', 'x')), false);
  assert.equal(isWaitTimeoutError(new Error('timed out')), false);
});
