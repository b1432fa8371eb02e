import { test } from 'node:test';
import assert from 'node:assert/strict';
import { toBinary } from '@bufbuild/protobuf';
import {
  decode,
  encode,
  encodeWithField,
  equals,
  isProtoError,
  make,
  RolloutRequestSchema,
  SCHEMA_VERSION,
  TaskSchema,
  TerminationClass,
  terminationClassFromName,
  effectKindFromName,
  EffectKind,
  terminationClassName,
  grpcServiceDefinition,
  Learner,
  RunStateSchema,
} from '../src/index.js';

void test('round trip keeps fields and stamps the schema version', () => {
  const task = make(TaskSchema, { id: 'shop/price/0001', startUrl: 'http://127.0.0.1:1/shop/', instruction: 'What is the price of "X"?', difficulty: 1 });
  const req = make(RolloutRequestSchema, { runId: 'r1', round: 3n, group: 2, sample: 4, attempt: 1, trajectoryId: 'r1/3/2/4/1', task, maxSteps: 15 });
  const back = decode(RolloutRequestSchema, encode(RolloutRequestSchema, req));
  assert.equal(back.schemaVersion, SCHEMA_VERSION);
  assert.equal(back.trajectoryId, 'r1/3/2/4/1');
  assert.equal(back.round, 3n);
  assert.equal(back.task?.instruction, 'What is the price of "X"?');
  assert.equal(back.task?.schemaVersion, SCHEMA_VERSION);
});

void test('an unknown major schema version is rejected with a clear error', () => {
  const msg = make(RolloutRequestSchema, { runId: 'r1' });
  msg.schemaVersion = 2;
  const bytes = toBinary(RolloutRequestSchema, msg);
  assert.throws(
    () => decode(RolloutRequestSchema, bytes),
    (e: unknown) => isProtoError(e) && e.code === 'PROTO_UNSUPPORTED_SCHEMA_VERSION' && /schema_version is 2/.test(e.message) && /owrl\.v1\.RolloutRequest/.test(e.message),
  );
});

void test('a message without a schema version (0) is rejected', () => {
  const bytes = toBinary(RolloutRequestSchema, make(RolloutRequestSchema, { runId: 'x' }));
  // make() stamps the version; a producer that never set it sends 0.
  const raw = make(RolloutRequestSchema, { runId: 'x' });
  raw.schemaVersion = 0;
  assert.ok(bytes.length > 0);
  assert.throws(() => decode(RolloutRequestSchema, toBinary(RolloutRequestSchema, raw)), /schema_version is 0/);
});

void test('garbage bytes are reported as undecodable, naming the type', () => {
  assert.throws(
    () => decode(TaskSchema, new Uint8Array([0xff, 0xff, 0xff, 0xff, 0x0f])),
    (e: unknown) => isProtoError(e) && e.code === 'PROTO_UNDECODABLE' && e.typeName === 'owrl.v1.Task',
  );
});

void test('termination class names follow the proto enum both ways', () => {
  assert.equal(terminationClassName(TerminationClass.ENV_ERROR), 'ENV_ERROR');
  assert.equal(terminationClassName(TerminationClass.STEP_BUDGET_EXHAUSTED), 'STEP_BUDGET_EXHAUSTED');
  assert.equal(terminationClassName(undefined), 'UNSPECIFIED');
  assert.equal(terminationClassFromName('INIT_ERROR'), TerminationClass.INIT_ERROR);
  assert.throws(() => terminationClassFromName('NOPE'), /unknown termination class "NOPE"/);
  assert.equal(effectKindFromName('value_mismatch'), EffectKind.VALUE_MISMATCH);
  assert.equal(effectKindFromName('navigated'), EffectKind.NAVIGATED);
  assert.throws(() => effectKindFromName('teleported'), /unknown effect kind "teleported"/);
});

void test('the grpc definition of Learner has the paths and streaming flags of the proto', () => {
  const def = grpcServiceDefinition(Learner);
  assert.equal(def['getRunState']?.path, '/owrl.v1.Learner/GetRunState');
  assert.equal(def['getRunState']?.responseStream, false);
  assert.equal(def['watchRun']?.responseStream, true);
  const state = make(RunStateSchema, { runId: 'abc', round: 7n });
  const bytes = def['getRunState']!.responseSerialize(state);
  const back = def['getRunState']!.responseDeserialize(bytes) as { runId: string; round: bigint };
  assert.equal(back.runId, 'abc');
  assert.equal(back.round, 7n);
});

void test('encodeWithField embeds a message field from its bytes as received; other fields are refused by name', () => {
  const task = make(TaskSchema, { id: 'shop-1', instruction: 'Find the price' });
  const taskBytes = encode(TaskSchema, task);
  const req = make(RolloutRequestSchema, { trajectoryId: 'run/0/1/0/0', task });
  const got = decode(RolloutRequestSchema, encodeWithField(RolloutRequestSchema, req, 'task', taskBytes));
  assert.ok(equals(RolloutRequestSchema, got, decode(RolloutRequestSchema, encode(RolloutRequestSchema, req))));
  assert.equal(got.task?.id, 'shop-1');
  assert.throws(() => encodeWithField(RolloutRequestSchema, req, 'trajectoryId', taskBytes), /RolloutRequest has no message field "trajectoryId"/);
  assert.throws(() => encodeWithField(RolloutRequestSchema, req, 'nope', taskBytes), /no message field "nope"/);
});
