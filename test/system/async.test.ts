// Asynchronous mode across processes (real nats-server, sites, judge, two actors with Chromium,
// the learner as its own process): dispatch keeps the actors' slots busy, updates run as soon as
// enough kept groups are in, groups still in flight carry over into the next round — also across
// a SIGKILL of the learner right after an update, before its checkpoint (the update trained while
// the next round went on, so the restart trains its written-ahead request again) — and the run finishes
// with every dispatched rollout scored once and each result trained, excluded (by cause, `stale`
// included) or dropped as late exactly once, with no trained trajectory staler than the bound.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RunPhase } from '@owrl/proto';
import { SHORT_RUN_ENV, startSystem, waitForSettledCounts } from '@owrl/testkit';

const MAX_STALENESS = 1;

void test('async mode: continuous dispatch, carried-over groups survive a learner kill, staleness bounded, counts add up', { timeout: 8 * 60_000 }, async () => {
  const sys = await startSystem({
    actors: 2,
    slots: 2,
    autostart: { learner: false },
    learnerEnv: {
      ...SHORT_RUN_ENV,
      OWRL_MODE: 'async',
      OWRL_MAX_STALENESS: String(MAX_STALENESS),
      OWRL_ROUNDS: '4',
      OWRL_GROUPS_PER_ROUND: '1',
      OWRL_MAX_GROUPS_PER_ROUND: '3',
      OWRL_GROUP_SIZE: '2',
      OWRL_CRASH_AT: 'after_update:2',
    },
  });
  try {
    const learner = sys.process('learner');
    learner.start();
    learner.expectExit();
    const exit = await learner.exited();
    assert.equal(exit.signal, 'SIGKILL', `the learner killed itself after its second update; log tail:\n${learner.tail()}`);
    learner.setEnv({ OWRL_CRASH_AT: undefined });
    learner.start();
    const state = await sys.waitForPhase(RunPhase.FINISHED, { timeoutMs: 5 * 60_000 });
    assert.equal(state.mode, 'async');
    assert.equal(state.incarnation, 2);

    const settled = await waitForSettledCounts(sys);
    const s = settled.state;
    const c = s.counters!;
    assert.equal(c.dispatched, BigInt(settled.dispatched), 'every dispatch is counted once');
    assert.equal(BigInt(settled.scored), c.trainable + c.excluded + c.lateDropped, 'every scored result is ingested, excluded or dropped once');
    assert.equal(Object.values(s.excluded).reduce((a, b) => a + b, 0n), c.excluded, 'exclusions add up by cause');
    assert.equal(s.excluded['stale'] ?? 0n, c.staleDropped, 'stale drops are exclusions by cause');
    assert.deepEqual(
      s.rounds.map((r) => Number(r.round)),
      [0, 1, 2, 3],
    );
    // None used twice: each trainable result is an episode of exactly one finished round.
    assert.equal(BigInt(s.rounds.reduce((a, r) => a + r.episodes, 0)), c.trainable, 'trainable results = episodes of the finished rounds');
    // Each group's fate counted once, also for groups decided again after the restart.
    assert.equal(c.groupsKept, BigInt(s.rounds.reduce((a, r) => a + r.groupsKept, 0)), 'kept groups counted once');
    assert.equal(
      c.groupsDroppedAllZero + c.groupsDroppedAllOne,
      BigInt(s.rounds.reduce((a, r) => a + r.groupsDroppedAllZero + r.groupsDroppedAllOne, 0)),
      'dropped groups counted once',
    );
    // Staleness: every trained trajectory within the bound, counted in the run state and per round.
    const st = s.staleness!;
    assert.equal(st.maxStaleness, MAX_STALENESS);
    assert.ok(st.counts.length <= MAX_STALENESS + 1, `lags ${st.counts.join(',')}`);
    const trained = s.rounds.reduce((a, r) => a + r.groupsKept * 2, 0);
    assert.equal(
      st.counts.reduce((a, b) => a + Number(b), 0),
      trained,
      'one staleness count per trained trajectory',
    );
    assert.equal(st.dropped, c.staleDropped);
    // Rounds 0 and 1 with kept groups each overlapped their update with the next round; the kill
    // came at round 1's commit, so the restart trained its written-ahead update again.
    const replayed = /training the written-ahead update again/.test(learner.log());
    if ((s.rounds[0]?.groupsKept ?? 0) > 0 && (s.rounds[1]?.groupsKept ?? 0) > 0) assert.ok(replayed, 'the restart trains the update checkpointed as written ahead');
    assert.equal(sys.failure(), null);
    console.log(
      JSON.stringify({
        test: 'async',
        dispatched: Number(c.dispatched),
        trainable: Number(c.trainable),
        excluded: Number(c.excluded),
        late: Number(c.lateDropped),
        stale_dropped: Number(c.staleDropped),
        staleness_counts: st.counts.map(Number),
        updates: Number(c.updates),
        replayed,
      }),
    );
  } finally {
    await sys.dispose();
  }
});
