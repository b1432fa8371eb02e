// The command line's errors are OwrlErrors: each predicate matches its class and, when asked, its
// code, and refuses another error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertCodedError } from '@owrl/core/testing';
import { isJudgeRecordError, JudgeRecordErrorCode, parseLabelledRecords } from '../src/judge-records.js';
import { isUsageError, UsageError, UsageErrorCode } from '../src/usage.js';

void test('isUsageError matches a UsageError CLI_BAD_USAGE and refuses another error', () => {
  const e = new UsageError('--rounds must be an integer >= 1, got "x"');
  assertCodedError(e, isUsageError, UsageErrorCode.BadUsage);
  assert.equal(e.code, 'CLI_BAD_USAGE');
  assert.equal(e.message, '--rounds must be an integer >= 1, got "x"');
});

void test('isJudgeRecordError matches a bad record line naming line and field, and refuses another error', () => {
  let e: unknown;
  try {
    parseLabelledRecords('{"label": "yes"}\n');
  } catch (x) {
    e = x;
  }
  assert.ok(isJudgeRecordError(e));
  assert.ok(isJudgeRecordError(e, JudgeRecordErrorCode.Invalid));
  assert.equal(e.line, 1);
  assert.equal(e.field, 'label');
  assert.equal(e.message, 'line 1: label: must be true or false, got "yes"');
  assert.equal(isJudgeRecordError(new UsageError('x')), false);
  assert.equal(isUsageError(e), false);
});
