import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Delivery } from '@owrl/bus';
import { make, ScoredTrajectorySchema, type ScoredTrajectory } from '@owrl/proto';
import { Inbox } from '../src/inbox.js';

void test('draining a burst of queued deliveries lets timers and I/O run in between (heartbeats, pings), not only at the end', async () => {
  const inbox = new Inbox(60_000);
  const n = 100;
  for (let i = 0; i < n; i++) {
    const scored = make(ScoredTrajectorySchema, { trajectoryId: `r/0/${i}/0/0` });
    const delivery = { value: scored, settled: false, working: () => {} } as unknown as Delivery<ScoredTrajectory>;
    inbox.push({ scored, delivery });
  }
  let taken = 0;
  let timerRanAt = -1;
  setTimeout(() => (timerRanAt = taken), 0);
  for (;;) {
    const ev = await inbox.next(Infinity, () => false);
    assert.ok(ev);
    taken += 1;
    // About a millisecond of work per result, as ingesting a large trajectory takes.
    const until = performance.now() + 1;
    while (performance.now() < until);
    if (taken === n) break;
  }
  assert.equal(inbox.pending, 0);
  assert.ok(timerRanAt >= 0 && timerRanAt < n, `the timer ran after ${timerRanAt} of ${n} results (-1: not before the burst was drained)`);
  inbox.stop();
});
