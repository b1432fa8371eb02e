// The end of a run's accounting, read from the bus and the learner together: nothing queued in
// OWRL_TASKS, nothing pending or unacked on the run's learner consumer, every dispatch stored once
// and every scored message counted by the learner as trainable, excluded or late.
import assert from 'node:assert/strict';
import { jetstreamManager } from '@nats-io/jetstream';
import type { RunState } from '@owrl/proto';
import type { OwrlSystem } from './system.js';
import { learnerConsumerName, STREAM_SCORED, STREAM_TASKS } from '@owrl/bus';

export interface SettledCounts {
  state: RunState;
  /** Rollout requests stored in OWRL_TASKS over the run. */
  dispatched: number;
  /** Scored trajectories stored in OWRL_SCORED. */
  scored: number;
}

/**
 * Resolves once the run's counts have settled (see the module comment).
 * @throws Error with the last counts seen when they have not settled within `timeoutMs`.
 */
export async function waitForSettledCounts(sys: Pick<OwrlSystem, 'natsConnection' | 'runId' | 'runState'>, timeoutMs = 120_000): Promise<SettledCounts> {
  const jsm = await jetstreamManager(await sys.natsConnection());
  let last = '';
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; ) {
    const tasks = await jsm.streams.info(STREAM_TASKS);
    const scored = await jsm.streams.info(STREAM_SCORED);
    const lc = await jsm.consumers.info(STREAM_SCORED, learnerConsumerName(sys.runId));
    const state = await sys.runState();
    const c = state.counters!;
    const accounted = c.trainable + c.excluded + c.lateDropped;
    if (tasks.state.messages === 0 && lc.num_pending === 0 && lc.num_ack_pending === 0 && BigInt(scored.state.messages) === accounted && BigInt(tasks.state.last_seq) === c.dispatched) {
      return { state, dispatched: tasks.state.last_seq, scored: scored.state.messages };
    }
    last =
      `tasks stored ${tasks.state.last_seq} (queued ${tasks.state.messages}), scored ${scored.state.messages}, learner consumer pending ${lc.num_pending} unacked ${lc.num_ack_pending}; ` +
      `learner dispatched ${c.dispatched}, trainable ${c.trainable}, excluded ${c.excluded}, late ${c.lateDropped}, duplicates ${c.duplicatesDropped}, in flight ${c.inFlight}`;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`counts never settled within ${timeoutMs} ms: ${last}`);
}

/**
 * Waits for the run's counts to settle, then checks its ledger: every dispatch stored once; every
 * scored result taken in, excluded (the causes adding up) or dropped as late once; nothing in
 * flight; and the trainable results exactly the episodes of the finished rounds (none used twice).
 * @throws AssertionError naming the count that does not hold.
 */
export async function expectSettledCounts(sys: Pick<OwrlSystem, 'natsConnection' | 'runId' | 'runState'>, timeoutMs = 120_000): Promise<SettledCounts> {
  const settled = await waitForSettledCounts(sys, timeoutMs);
  const s = settled.state;
  const c = s.counters!;
  assert.equal(c.dispatched, BigInt(settled.dispatched), 'every dispatch is counted once');
  assert.equal(BigInt(settled.scored), c.trainable + c.excluded + c.lateDropped, 'every scored result is ingested, excluded or dropped as late once');
  assert.equal(c.scoredIngested, c.trainable + c.excluded);
  assert.equal(
    Object.values(s.excluded).reduce((a, b) => a + b, 0n),
    c.excluded,
    'exclusions add up by cause',
  );
  assert.equal(c.inFlight, 0n);
  assert.equal(BigInt(s.rounds.reduce((a, r) => a + r.episodes, 0)), c.trainable, 'trainable results = episodes of the finished rounds (none used twice)');
  return settled;
}

/**
 * Learner settings of the whole-system tests' short runs: 1–3-step tasks of difficulty 1 from a
 * pool of 12, a round timeout no test reaches, a 3 s scored ack_wait (what a killed learner held
 * comes back within seconds), and resume on (a restarted learner takes its run up).
 */
export const SHORT_RUN_ENV: Readonly<Record<string, string>> = {
  OWRL_CURRICULUM: '1:3',
  OWRL_DIFFICULTIES: '1',
  OWRL_TASK_COUNT: '12',
  OWRL_ROUND_TIMEOUT_S: '180',
  OWRL_SCORED_ACK_WAIT_S: '3',
  OWRL_RESUME: '1',
};
