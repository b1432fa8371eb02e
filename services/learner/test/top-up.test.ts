// Async mode's top-up sizing, each expectation worked out by hand from the rule: in flight a
// round's worth, at least every slot plus a group, at most 4 requests a slot (16 groups before any
// actor is seen); pending groups under max(maxGroupsPerRound × (maxStaleness + 1), ⌈3 × slots /
// groupSize⌉); held results within max_ack_pending.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { heldFor, topUpWant, withinRoom, type TopUpInput } from '../src/top-up.js';

const base: TopUpInput = { lastRound: false, groupSize: 4, groupsPerRound: 100, maxGroupsPerRound: 200, maxStaleness: 4, kept: 0, pending: 0, inFlight: 0, finished: 0, slots: 0 };

void test('a round far larger than the fleet goes out four requests a slot', () => {
  // 3 slots: target max(3 + 4, min(400, 12)) = 12 rollouts, ⌈12 / 4⌉ = 3 groups; cap max(1000, 3) − 0.
  assert.equal(topUpWant({ ...base, slots: 3 }), 3);
  // 10 of them in flight already: ⌈(12 − 10) / 4⌉ = 1.
  assert.equal(topUpWant({ ...base, slots: 3, inFlight: 10, pending: 3 }), 1);
  // 12 in flight, 5 of them finished (waiting in the inbox): ⌈(12 − 7) / 4⌉ = 2.
  assert.equal(topUpWant({ ...base, slots: 3, inFlight: 12, finished: 5, pending: 3 }), 2);
  // 12 in flight, none finished: ⌈0 / 4⌉ = 0, nothing to send.
  assert.equal(topUpWant({ ...base, slots: 3, inFlight: 12, pending: 3 }), 0);
});

void test('before any actor is seen, 16 groups; a fleet larger than a round still gets every slot and one group', () => {
  // No slots: target max(0 + 4, min(400, 16 × 4)) = 64, 64 / 4 = 16 groups.
  assert.equal(topUpWant({ ...base }), 16);
  // groupsPerRound 2 (8 rollouts), 100 slots: target max(104, min(8, 400)) = 104, 26 groups.
  assert.equal(topUpWant({ ...base, groupsPerRound: 2, maxGroupsPerRound: 4, slots: 100 }), 26);
});

void test('the pending-group cap: the staleness bound\'s groups, or three times the slots\' worth', () => {
  // 2000 slots, groups of 5, 8 a round, cap 16 a round, staleness 4: target max(2005, min(40, 8000)) = 2005;
  // cap max(16 × 5, ⌈6000 / 5⌉) = 1200; 1000 in flight in 1100 pending groups:
  // min(⌈(2005 − 1000) / 5⌉, 1200 − 1100) = min(201, 100) = 100.
  const fleet = { ...base, groupSize: 5, groupsPerRound: 8, maxGroupsPerRound: 16, slots: 2000 };
  assert.equal(topUpWant({ ...fleet, inFlight: 1000, pending: 1100 }), 100);
  // 600 pending: min(201, 600) = 201.
  assert.equal(topUpWant({ ...fleet, inFlight: 1000, pending: 600 }), 201);
  // 10 slots: target max(15, min(40, 40)) = 40; cap max(80, ⌈30 / 5⌉) = 80; 79 pending:
  // min(⌈40 / 5⌉, 80 − 79) = min(8, 1) = 1; 80 pending: 0.
  assert.equal(topUpWant({ ...fleet, slots: 10, pending: 79 }), 1);
  assert.equal(topUpWant({ ...fleet, slots: 10, pending: 80 }), 0);
});

void test('the last round asks only for what it still needs', () => {
  // 8 a round, 5 kept, 2 pending: 8 − 5 − 2 = 1, whatever the fleet.
  assert.equal(topUpWant({ ...base, lastRound: true, groupsPerRound: 8, kept: 5, pending: 2, slots: 1000 }), 1);
  assert.equal(topUpWant({ ...base, lastRound: true, groupsPerRound: 8, kept: 6, pending: 2 }), 0);
});

void test('what may be held, and the want cut to max_ack_pending', () => {
  // 1100 pending + 100 wanted + 16 decided-not-trained groups of 5: 6080 results.
  assert.equal(heldFor(100, 1100, 16, 5), 6080);
  // max_ack_pending 6000: ⌊6000 / 5⌋ − 1100 − 16 = 84 groups fit.
  assert.equal(withinRoom(100, 6000, 1100, 16, 5), 84);
  // Room for more than wanted: the want stands.
  assert.equal(withinRoom(100, 10_000, 1100, 16, 5), 100);
  // max_ack_pending 4 (far below a round): ⌊4 / 4⌋ − 0 − 4 = −3, nothing may go out.
  assert.equal(withinRoom(3, 4, 0, 4, 4), -3);
});
