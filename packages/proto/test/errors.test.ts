// ProtoError is an OwrlError: isProtoError matches its class and, when asked, its code, and
// refuses any other error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OwrlError } from '@owrl/core';
import { decode, isProtoError, ProtoError, ProtoErrorCode, TaskSchema } from '../src/index.js';

void test('isProtoError matches a ProtoError and its code, and refuses another code or error', () => {
  let caught: unknown;
  try {
    decode(TaskSchema, new Uint8Array([0xff, 0xff, 0xff, 0xff, 0x0f]));
  } catch (e) {
    caught = e;
  }
  assert.ok(caught instanceof OwrlError);
  assert.ok(isProtoError(caught));
  assert.ok(isProtoError(caught, ProtoErrorCode.Undecodable));
  assert.equal(isProtoError(caught, ProtoErrorCode.MissingField), false);
  assert.equal(caught.name, 'ProtoError');
  assert.equal(caught.typeName, 'owrl.v1.Task');
  assert.ok(isProtoError(new ProtoError(ProtoErrorCode.MissingField, 'owrl.v1.Step', 'x'), ProtoErrorCode.MissingField));
  assert.equal(isProtoError(new OwrlError(ProtoErrorCode.Undecodable, 'not a ProtoError')), false);
  assert.equal(isProtoError(new Error('x')), false);
});
