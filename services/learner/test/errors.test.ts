import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BusError, BusErrorCode } from '@owrl/bus';
import { OwrlError } from '@owrl/core';
import { CheckpointError, ControlError, ControlErrorCode, failureCodeOf, FatalRunCode, FatalRunError, isCheckpointError, isControlError, isFatalRunError } from '../src/errors.js';

void test('the fatal codes are one constant map, the codes the run state shows', () => {
  assert.deepEqual(Object.values(FatalRunCode).sort(), [
    'CHECKPOINT_CORRUPT',
    'CHECKPOINT_FAILED',
    'CHECKPOINT_MISMATCH',
    'ENGINE_INCOMPATIBLE',
    'LEARNER_ERROR',
    'TRAINER_ARTIFACT_MISSING',
    'TRAINER_BAD_RESULT',
    'TRAINER_BATCH_CORRUPT',
    'TRAINER_BATCH_MISSING',
    'TRAINER_FAILED',
  ]);
  const cause = new Error('disk gone');
  const e = new FatalRunError(FatalRunCode.CheckpointFailed, 'saving the checkpoint in /x failed', { cause });
  assert.ok(e instanceof OwrlError);
  assert.deepEqual([e.name, e.code, e.cause], ['FatalRunError', 'CHECKPOINT_FAILED', cause]);
  assert.equal(failureCodeOf(e), 'CHECKPOINT_FAILED');
  assert.equal(failureCodeOf(new FatalRunError(BusErrorCode.Closed, 'ack failed')), 'BUS_CLOSED', 'a bus failure keeps the bus code');
  assert.equal(failureCodeOf(new TypeError('x is undefined')), 'LEARNER_ERROR');
  assert.equal(failureCodeOf(new BusError(BusErrorCode.Closed, 'closed')), 'LEARNER_ERROR', 'only a FatalRunError carries its code into the run state');
  assert.equal(failureCodeOf('thrown string'), 'LEARNER_ERROR');
});

void test('predicates tell the learner\'s errors apart by class and code', () => {
  const corrupt = new CheckpointError(FatalRunCode.CheckpointCorrupt, '/d/checkpoint.json', 'loop.rng', 'checkpoint /d/checkpoint.json: loop: field rng must be a number, got null');
  assert.deepEqual([corrupt.name, corrupt.file, corrupt.field], ['CheckpointError', '/d/checkpoint.json', 'loop.rng']);
  assert.equal(isFatalRunError(corrupt), true, 'a corrupt checkpoint ends the run');
  assert.equal(isFatalRunError(corrupt, FatalRunCode.CheckpointCorrupt), true);
  assert.equal(isFatalRunError(corrupt, FatalRunCode.CheckpointFailed), false);
  assert.equal(isCheckpointError(corrupt, FatalRunCode.CheckpointMismatch), false);
  assert.equal(isCheckpointError(new FatalRunError(FatalRunCode.CheckpointCorrupt, 'x')), false);
  assert.equal(failureCodeOf(corrupt), 'CHECKPOINT_CORRUPT');
  const released = new ControlError(ControlErrorCode.RoundReleased, 'round 1 was released');
  assert.equal(isControlError(released, ControlErrorCode.RoundReleased), true);
  assert.equal(isControlError(released, ControlErrorCode.RoundNotFound), false);
  assert.equal(isFatalRunError(released), false, 'a control error never ends the run');
});
