import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Curriculum } from '../src/index.js';

void describe('Curriculum', () => {
  void it('follows DEFAULTS: 15 steps for rounds 0..89, then 30', () => {
    const c = new Curriculum();
    assert.equal(c.maxStepsForRound(0), 15);
    assert.equal(c.maxStepsForRound(89), 15);
    assert.equal(c.maxStepsForRound(90), 30);
    assert.equal(c.maxStepsForRound(139), 30);
    assert.equal(c.maxStepsForRound(10_000), 30, 'the last stage continues');
    assert.equal(c.totalRounds, 140);
  });
  void it('handles custom stages and rejects bad ones', () => {
    const c = new Curriculum([{ rounds: 1, maxSteps: 3 }, { rounds: 2, maxSteps: 5 }, { rounds: 1, maxSteps: 9 }]);
    assert.deepEqual([0, 1, 2, 3, 4].map((r) => c.maxStepsForRound(r)), [3, 5, 5, 9, 9]);
    assert.equal(c.stageForRound(2), 1);
    assert.throws(() => new Curriculum([]), /no stages/);
    assert.throws(() => new Curriculum([{ rounds: 0, maxSteps: 3 }]), /curriculum\[0\]\.rounds is 0/);
    assert.throws(() => c.maxStepsForRound(-1), /round is -1/);
  });
});
