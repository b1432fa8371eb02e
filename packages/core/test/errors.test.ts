// The coded errors of the core: each is an OwrlError whose predicate matches its class and, when
// asked, its code, and refuses any other error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, ConfigErrorCode, envInt, isConfigError, isMeterError, MeterError, MeterErrorCode, noopMeter, OwrlError } from '../src/index.js';
import { assertCodedError } from '../src/testing.js';

void test('ConfigError: an OwrlError CONFIG_INVALID naming the variable; isConfigError matches it and refuses others', () => {
  let caught: unknown;
  try {
    envInt('OWRL_X', 1, { OWRL_X: 'many' });
  } catch (e) {
    caught = e;
  }
  assert.ok(caught instanceof OwrlError);
  assert.ok(isConfigError(caught));
  assert.ok(isConfigError(caught, ConfigErrorCode.Invalid));
  assert.equal(caught.code, 'CONFIG_INVALID');
  assert.equal(caught.name, 'ConfigError');
  assert.equal(caught.variable, 'OWRL_X');
  assert.equal(caught.message, 'OWRL_X="many" is not an integer >= 0');
  assert.equal(isConfigError(new OwrlError('CONFIG_INVALID', 'not a ConfigError')), false);
  assert.equal(isConfigError(new Error('x')), false);
  assert.equal(isConfigError({ code: 'CONFIG_INVALID', variable: 'X' }), false);
});

void test('MeterError: isMeterError matches its class and code, and refuses others', () => {
  let caught: unknown;
  try {
    noopMeter.counter({ name: 'no_unit', help: 'x' });
  } catch (e) {
    caught = e;
  }
  assert.ok(caught instanceof OwrlError);
  assert.ok(isMeterError(caught));
  assert.ok(isMeterError(caught, MeterErrorCode.InvalidMetric));
  assert.equal(isMeterError(caught, MeterErrorCode.InvalidRecord), false);
  assert.equal(isMeterError(new ConfigError('X', 'x')), false);
  assert.ok(isMeterError(new MeterError(MeterErrorCode.InvalidRecord, 'x'), MeterErrorCode.InvalidRecord));
});

void test('assertCodedError holds a predicate to the family contract and fails one that breaks it', () => {
  const e = new MeterError(MeterErrorCode.InvalidMetric, 'x');
  assertCodedError(e, isMeterError, MeterErrorCode.InvalidMetric, MeterErrorCode.InvalidRecord);
  // a predicate that looks at the code only also takes a bare OwrlError with it
  const byCode = (x: unknown, code?: MeterErrorCode): x is MeterError => x instanceof OwrlError && (code === undefined || x.code === code);
  assert.throws(() => assertCodedError(e, byCode, MeterErrorCode.InvalidMetric), /refuses a bare OwrlError with the same code/);
  // one that ignores the code it is asked about
  const anyCode = (x: unknown): x is MeterError => x instanceof MeterError;
  assert.throws(() => assertCodedError(e, anyCode, MeterErrorCode.InvalidMetric, MeterErrorCode.InvalidRecord), /refuses another code/);
  assert.throws(() => assertCodedError(new Error('x'), isMeterError, MeterErrorCode.InvalidMetric), /an OwrlError/);
});
