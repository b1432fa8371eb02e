// Kill test of the learner across processes (real nats-server, sites, judge, two actors with
// Chromium, the learner as its own process): the learner SIGKILLs itself at four points of a
// round — while dispatching, with groups in flight, after the update before the checkpoint, and
// while publishing weights (OWRL_CRASH_AT) — and is restarted each time with the same data
// directory. The run must finish with every dispatched rollout scored once and each scored
// result ingested, excluded (by cause) or dropped as late exactly once, none used twice, and the
// policy version never going backwards, at the learner or at the actors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { RunPhase } from '@owrl/proto';
import { expectSettledCounts, SHORT_RUN_ENV, startSystem } from '@owrl/testkit';

function logLines(file: string): Array<Record<string, unknown>> {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .flatMap((l) => {
      try {
        return [JSON.parse(l) as Record<string, unknown>];
      } catch {
        return [];
      }
    });
}

function nonDecreasing(xs: number[]): boolean {
  return xs.every((x, i) => i === 0 || x >= (xs[i - 1] ?? 0));
}

void test('a learner SIGKILLed at four points of a round resumes each time and finishes the run with nothing lost or used twice', { timeout: 8 * 60_000 }, async () => {
  const sys = await startSystem({
    actors: 2,
    slots: 1,
    autostart: { learner: false },
    learnerEnv: {
      ...SHORT_RUN_ENV,
      OWRL_ROUNDS: '2',
      OWRL_GROUPS_PER_ROUND: '2',
      // Dynamic sampling refills a round whose groups came out all-0 or all-1 (up to 8 groups), so
      // each round keeps a group and trains: the publishing point is reached in every run.
      OWRL_MAX_GROUPS_PER_ROUND: '8',
      OWRL_GROUP_SIZE: '2',
      OWRL_CRASH_AT: 'dispatching:2',
    },
  });
  try {
    const learner = sys.process('learner');
    learner.start();
    learner.expectExit();
    // Each start dies at the next point; the last runs to the end.
    const crashed: string[] = [];
    let lastRestart = 0;
    let point = 'dispatching:2';
    for (const next of ['in_flight:2', 'after_update:1', 'publishing:1', '']) {
      const ended = await (async () => {
        for (const deadline = Date.now() + 4 * 60_000; Date.now() < deadline; ) {
          if (!learner.running) return 'killed';
          const phase = await sys.runState(2000).then(
            (st) => st.phase,
            () => RunPhase.UNSPECIFIED,
          );
          if (phase === RunPhase.FINISHED) return 'finished';
          await new Promise((r) => setTimeout(r, 300));
        }
        return 'timeout';
      })();
      assert.notEqual(ended, 'timeout', `the learner neither reached ${point} nor finished`);
      if (ended === 'finished') break;
      const exit = await learner.exited();
      assert.equal(exit.signal, 'SIGKILL', `the learner killed itself at ${point} (exit ${JSON.stringify(exit)}); log tail:\n${learner.tail()}`);
      crashed.push(point);
      learner.setEnv({ OWRL_CRASH_AT: next || undefined });
      lastRestart = Date.now();
      learner.start();
      if (next) learner.expectExit();
      point = next;
    }
    assert.deepEqual(crashed, ['dispatching:2', 'in_flight:2', 'after_update:1', 'publishing:1'], 'every point is reached');
    const roundsAtRestart = (await sys.waitForLearner().then(() => sys.runState())).rounds.length;
    const afterRestart = await sys.waitForRounds(Math.min(2, roundsAtRestart + 1), { timeoutMs: 4 * 60_000 });
    const restartToRoundMs = Date.now() - lastRestart;
    assert.ok(afterRestart.rounds.length >= 1);
    const state = await sys.waitForPhase(RunPhase.FINISHED, { timeoutMs: 4 * 60_000 });
    assert.equal(state.incarnation, crashed.length + 1, 'one start per crash, plus the first');

    // Let every rollout still out there (pre-crash dispatches, superseded ones) come back and be
    // counted: dispatched = scored = ingested + excluded (+ late: superseded pre-crash attempts),
    // each exactly once, and every trainable result in one slot of one finished round.
    const settled = await expectSettledCounts(sys);
    const s = settled.state;
    const c = s.counters!;
    assert.deepEqual(
      s.rounds.map((r) => Number(r.round)),
      [0, 1],
    );
    assert.ok(c.updates >= 1n && c.updates <= 2n, `updates ${c.updates}`);

    // The policy version never goes backwards: published by the learner, run by the actors.
    const published = logLines(learner.logFile)
      .filter((l) => l.msg === 'policy published')
      .map((l) => Number(l.policyVersion));
    assert.ok(published.length >= 2 && nonDecreasing(published), `published versions ${published.join(',')}`);
    for (const a of ['actor-1', 'actor-2']) {
      const swapped = logLines(sys.process(a).logFile)
        .filter((l) => l.msg === 'policy swapped')
        .map((l) => Number(l.policyVersion));
      assert.ok(nonDecreasing(swapped), `${a} swapped versions ${swapped.join(',')}`);
    }
    assert.equal(sys.failure(), null);
    console.log(
      JSON.stringify({
        test: 'learner-restart',
        crashed,
        restart_to_round_ms: restartToRoundMs,
        dispatched: Number(c.dispatched),
        scored: settled.scored,
        trainable: Number(c.trainable),
        excluded: Number(c.excluded),
        late: Number(c.lateDropped),
        duplicates: Number(c.duplicatesDropped),
        redispatched: Number(c.redispatched),
      }),
    );
  } finally {
    await sys.dispose();
  }
});
