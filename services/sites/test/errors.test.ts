// The sites' errors: isSitesError matches the class and, when asked, the code; a bad fault rule is
// a FaultRuleError (a SitesError SITES_BAD_REQUEST naming the field) with a predicate of its own;
// both refuse another error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OwrlError } from '@owrl/core';
import { isFaultRuleError, isSitesError, parseFaultRule, SitesError, SitesErrorCode } from '../src/index.js';

void test('a bad fault rule is a FaultRuleError and a SitesError SITES_BAD_REQUEST; the predicates refuse other errors', () => {
  let e: unknown;
  try {
    parseFaultRule({ match: {} }, ['shop']);
  } catch (x) {
    e = x;
  }
  assert.ok(e instanceof OwrlError);
  assert.ok(isFaultRuleError(e));
  assert.ok(isSitesError(e, SitesErrorCode.BadRequest));
  assert.equal(isSitesError(e, SitesErrorCode.BadOption), false);
  assert.equal(e.name, 'FaultRuleError');
  assert.equal(e.field, 'fault');
  assert.equal(e.status, 400);

  const option = new SitesError(SitesErrorCode.BadOption, 'port must be a number');
  assert.ok(isSitesError(option));
  assert.equal(option.name, 'SitesError');
  assert.equal(isFaultRuleError(option), false);
  assert.equal(isSitesError(new OwrlError(SitesErrorCode.BadRequest, 'x')), false);
  assert.equal(isSitesError(new Error('x')), false);
});
