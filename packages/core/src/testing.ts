// Test helpers of the core, for every package's tests: the contract of owrl's coded errors.
import assert from 'node:assert/strict';
import { OwrlError } from './errors.js';

/**
 * Asserts the contract every coded error family keeps: `e` is an OwrlError of its class with
 * `code`; its predicate `is` matches it with and without the code, refuses `otherCode` (when given),
 * and refuses a bare OwrlError carrying the same code and a plain Error.
 */
export function assertCodedError<T extends OwrlError>(e: unknown, is: (e: unknown, code?: T['code']) => e is T, code: T['code'], otherCode?: T['code']): asserts e is T {
  assert.ok(e instanceof OwrlError, `an OwrlError: ${String(e)}`);
  assert.ok(is(e), `${is.name} matches ${e.name}`);
  assert.ok(is(e, code), `${is.name} matches ${e.name} with its code ${code} (it has ${e.code})`);
  if (otherCode !== undefined) assert.equal(is(e, otherCode), false, `${is.name} refuses another code (${otherCode})`);
  assert.equal(is(new OwrlError(code, 'x')), false, `${is.name} refuses a bare OwrlError with the same code`);
  assert.equal(is(new Error('x')), false, `${is.name} refuses a plain Error`);
}
